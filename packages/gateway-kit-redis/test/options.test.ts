import { once } from 'node:events';
import { createServer } from 'node:net';
import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import { RedisJobStore, RedisRecordStore } from '../src/index.ts';

// Option checks run in the constructor, before any connection: no Redis needed.
const caps = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'];

describe('a cap on what callers make the store keep is a positive integer (0 is refused, never "unbounded")', () => {
  it.each(
    ['maxJobs', 'maxFinishedPerOwner', 'maxPendingCallbacks', 'maxPendingCallbacksPerPrincipal']
      .concat('maxPendingCallbackBytesPerPrincipal')
      .flatMap((option) => caps.map((value) => [option, value] as const)),
  )(
    'new RedisJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      expect(() => new RedisJobStore({ [option]: value })).toThrow(GatewayConfigError);
      expect(() => new RedisJobStore({ [option]: value })).toThrow(
        new RegExp(`^new RedisJobStore: ${option} is .*: expected a positive integer\\.$`),
      );
    },
  );

  it.each(caps)('new RedisRecordStore({ maxRecords: %o }) throws a GatewayConfigError', (value) => {
    expect(() => new RedisRecordStore({ maxRecords: value as number })).toThrow(
      /^new RedisRecordStore: maxRecords is .*: expected a positive integer\.$/,
    );
  });
});

describe('other options, in the same message style', () => {
  it.each([
    [
      { leaseMs: 0 },
      'new RedisJobStore: leaseMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { sweepIntervalMs: -1 },
      'new RedisJobStore: sweepIntervalMs is the number -1: expected 0 (off) or a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { commandTimeoutMs: 0 },
      'new RedisJobStore: commandTimeoutMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { connectTimeoutMs: Number.NaN },
      'new RedisJobStore: connectTimeoutMs is NaN: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { waitForReplicas: { replicas: 0, timeoutMs: 500 } },
      'new RedisJobStore: waitForReplicas.replicas is the number 0: expected a positive integer.',
    ],
    [
      { waitForReplicas: { replicas: 1, timeoutMs: 2_000 } },
      'new RedisJobStore: waitForReplicas.timeoutMs is the number 2000: expected less than commandTimeoutMs (2000 ms), the deadline WAIT runs under.',
    ],
    [
      { commandTimeoutMs: 5_000, waitForReplicas: { replicas: 1, timeoutMs: 2 ** 40 } },
      'new RedisJobStore: waitForReplicas.timeoutMs is the number 1099511627776: expected less than commandTimeoutMs (5000 ms), the deadline WAIT runs under.',
    ],
    [
      { url: 'redis://127.0.0.1:1', cluster: { rootNodes: [] } },
      'new RedisJobStore: give one of url, cluster or client, not cluster and url.',
    ],
    [
      { cluster: { rootNodes: [] } },
      'new RedisJobStore: cluster.rootNodes is an empty array: expected at least one seed node.',
    ],
  ])('%o → %s', (options, message) => {
    expect(() => new RedisJobStore(options as never)).toThrow(new GatewayConfigError(message));
  });
});

// Above 2 147 483 647 ms a timer fires at once: an interval would spin, a deadline never wait.
const MAX_TIMER_MS = 2_147_483_647;
const durations = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10', 2 ** 31, 2 ** 53];
const timers = [
  'leaseMs',
  'cancelPollIntervalMs',
  'callbackPollIntervalMs',
  'commandTimeoutMs',
  'connectTimeoutMs',
];

describe('a duration a timer waits for is a positive integer of ms that a timer holds', () => {
  it.each(timers.flatMap((option) => durations.map((value) => [option, value] as const)))(
    'new RedisJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      const create = () => new RedisJobStore({ [option]: value });
      expect(create).toThrow(GatewayConfigError);
      expect(create).toThrow(
        new RegExp(
          `^new RedisJobStore: ${option} is .*: expected a positive integer of milliseconds up to 2147483647\\.$`,
        ),
      );
    },
  );

  it.each(durations.filter((value) => value !== 0))(
    'new RedisJobStore({ sweepIntervalMs: %o }) throws (0 turns the sweeper off)',
    (value) => {
      expect(() => new RedisJobStore({ sweepIntervalMs: value as number })).toThrow(
        /^new RedisJobStore: sweepIntervalMs is .*: expected 0 \(off\) or a positive integer of milliseconds up to 2147483647\.$/,
      );
    },
  );

  it.each(['commandTimeoutMs', 'connectTimeoutMs'])(
    'new RedisRecordStore({ %s: 2 ** 31 }) throws too',
    (option) => {
      expect(() => new RedisRecordStore({ [option]: 2 ** 31 })).toThrow(
        new RegExp(
          `^new RedisRecordStore: ${option} is the number 2147483648: expected a positive integer of milliseconds up to 2147483647\\.$`,
        ),
      );
    },
  );

  it('2147483647 ms, the longest a timer holds, is accepted for each; sweepIntervalMs 0 too', async () => {
    const longest = Object.fromEntries(timers.map((option) => [option, MAX_TIMER_MS]));
    const stores = [
      new RedisJobStore({ url: 'redis://127.0.0.1:1', onError: () => {}, ...longest }),
      new RedisJobStore({ url: 'redis://127.0.0.1:1', onError: () => {}, sweepIntervalMs: 0 }),
      new RedisJobStore({
        url: 'redis://127.0.0.1:1',
        onError: () => {},
        sweepIntervalMs: MAX_TIMER_MS,
      }),
    ];
    for (const store of stores) await store.close();
  });
});

describe('a refused store opens no connection', () => {
  it('every refused option throws before the store connects; a valid store then connects alone', async () => {
    // A TCP server standing in for Redis: it only counts the connections it is offered.
    const server = createServer((socket) => socket.destroy());
    let offered = 0;
    server.on('connection', () => offered++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
    const refused = [
      { waitForReplicas: { replicas: 0, timeoutMs: 500 } },
      { waitForReplicas: { replicas: 1, timeoutMs: 60_000 } },
      { maxPendingCallbacksPerPrincipal: 0 },
      { maxPendingCallbackBytesPerPrincipal: -1 },
      { maxJobs: 0 },
      { leaseMs: 2 ** 31 },
      { prefix: '{tag}' },
      { commandTimeoutMs: Number.NaN },
    ];
    for (const options of refused)
      expect(() => new RedisJobStore({ url, onError: () => {}, ...options })).toThrow(
        GatewayConfigError,
      );
    expect(() => new RedisRecordStore({ url, onError: () => {}, maxRecords: 0 })).toThrow(
      GatewayConfigError,
    );
    // Connections are offered in the order the stores started them: had a refused store
    // connected, its connection would be counted by the time the valid one's arrives.
    const valid = new RedisJobStore({ url, onError: () => {}, sweepIntervalMs: 0 });
    await once(server, 'connection');
    await valid.close();
    server.close();
    expect(offered).toBe(1);
  });
});
