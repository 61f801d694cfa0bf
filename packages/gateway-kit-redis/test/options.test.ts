import { once } from 'node:events';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { GatewayConfigError } from '@svc/gateway-kit/store';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import {
  type RedisClient,
  RedisJobStore,
  type RedisJobStoreOptions,
  RedisRecordStore,
} from '../src/index.ts';

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

describe('a URL node-redis cannot use is refused naming the option, with nothing of the URL in the error', () => {
  const password = 'S3cr3tPassw0rd';
  const bad = `redis://app:${password}@cache:6379:bad`;
  /** Every run of 5 characters of the password: no part of it may show. */
  const parts = Array.from({ length: password.length - 4 }, (_, i) => password.slice(i, i + 5));
  const refusal = (create: () => unknown): Error => {
    try {
      create();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected the constructor to throw');
  };
  const cases: [string, () => unknown, string][] = [
    ['new RedisJobStore({ url })', () => new RedisJobStore({ url: bad }), 'new RedisJobStore: url'],
    [
      'new RedisRecordStore({ url })',
      () => new RedisRecordStore({ url: bad }),
      'new RedisRecordStore: url',
    ],
    [
      'new RedisJobStore({ clientOptions: { url } })',
      () => new RedisJobStore({ clientOptions: { url: bad } }),
      'new RedisJobStore: clientOptions.url',
    ],
    [
      'new RedisRecordStore({ cluster: { rootNodes: [{ url }] } })',
      () => new RedisRecordStore({ cluster: { rootNodes: [{ url: bad }] } }),
      'new RedisRecordStore: cluster.rootNodes[0].url',
    ],
  ];

  it.each(cases)('%s', (_name, create, start) => {
    const error = refusal(create);
    expect(error).toBeInstanceOf(GatewayConfigError);
    expect(error.message).toBe(
      `${start} is a string: expected a Redis URL: redis[s]://[[user][:password]@]host[:port][/db] or unix:///path/to/socket.`,
    );
    // What console.error(error), a logger's JSON and a look at its properties would show.
    const shown = [
      inspect(error, { depth: 10, showHidden: true }),
      JSON.stringify(error),
      JSON.stringify(
        Object.getOwnPropertyNames(error).map((key) => [key, String(Reflect.get(error, key))]),
      ),
      String(error.cause),
    ].join('\n');
    for (const part of parts) expect(shown).not.toContain(part);
  });

  it.each([
    ['http://app:pw@cache:6379'], // another scheme
    ['redis://cache:6379/zero'], // a database that is not a number
    ['redis://app:%zz@cache:6379'], // a password node-redis cannot decode
    ['cache:6379'],
  ])('%s is refused too', (url) => {
    expect(() => new RedisJobStore({ url })).toThrow(
      /^new RedisJobStore: url is a string: expected a Redis URL: /,
    );
  });

  it('a url given as a number is refused without printing it (a URL may hold a password)', () => {
    expect(() => new RedisJobStore({ url: 8675309123 as unknown as string })).toThrow(
      /^new RedisJobStore: url is a number: expected a Redis URL: /,
    );
  });

  it('an empty url is refused (it used to connect to redis://127.0.0.1:6379), with the unset-variable hint', () => {
    for (const create of [
      () => new RedisJobStore({ url: '' }),
      () => new RedisRecordStore({ url: '' }),
    ])
      expect(create).toThrow(
        /^new Redis(Job|Record)Store: url is an empty string: is an environment variable unset\? \(expected a Redis URL: /,
      );
  });
});

describe('an unknown option name is refused (it used to be ignored, the store falling back to defaults)', () => {
  it.each([
    [{ urll: 'redis://cache:6379' }, 'unknown option "urll"'],
    [{ maxJob: 5 }, 'unknown option "maxJob"'],
    [{ commandTimeout: 5 }, 'unknown option "commandTimeout"'],
    [{ url: 'redis://cache:6379', prefx: 'a:', leaseMS: 5 }, 'unknown options "prefx", "leaseMS"'],
  ])('new RedisJobStore(%o) names it and lists the known ones', (options, unknown) => {
    const create = () => new RedisJobStore(options as never);
    expect(create).toThrow(GatewayConfigError);
    expect(create).toThrow(
      new RegExp(
        `^new RedisJobStore: ${unknown} \\(known: url, clientOptions, cluster, client, commandTimeoutMs, .*, leaseMs, .*, onListenerError\\)\\.$`,
      ),
    );
  });

  it('new RedisRecordStore({ prefx }) and a job-store-only option name are refused', () => {
    expect(() => new RedisRecordStore({ prefx: 'x' } as never)).toThrow(
      new GatewayConfigError(
        'new RedisRecordStore: unknown option "prefx" (known: url, clientOptions, cluster, client, commandTimeoutMs, connectTimeoutMs, onError, prefix, buckets, maxRecords).',
      ),
    );
    expect(() => new RedisRecordStore({ leaseMs: 1_000 } as never)).toThrow(
      /^new RedisRecordStore: unknown option "leaseMs" \(known: /,
    );
  });

  it('the message shows names, never the values (an unknown option may hold a secret)', () => {
    const create = () => new RedisJobStore({ passwd: 'S3cr3tPassw0rd' } as never);
    expect(create).toThrow(/unknown option "passwd"/);
    expect(create).not.toThrow(/S3cr3t/);
  });

  it('options that are not an object are refused', () => {
    expect(() => new RedisJobStore(null as never)).toThrow(
      new GatewayConfigError('new RedisJobStore: options is null: expected an options object.'),
    );
  });

  it('every documented option is still accepted, with a url, a cluster or a client', async () => {
    const onError = () => {};
    const connection = {
      commandTimeoutMs: 1_000,
      connectTimeoutMs: 1_000,
      onError,
    };
    const jobOptions = {
      prefix: 'all:',
      buckets: 2,
      retentionMs: 60_000,
      maxJobs: 100,
      maxFinishedPerOwner: 10,
      leaseMs: 3_000,
      sweepIntervalMs: 0,
      cancelPollIntervalMs: 1_000,
      callbackPollIntervalMs: 1_000,
      maxPendingCallbacks: 100,
      maxPendingCallbacksPerPrincipal: 10,
      maxPendingCallbackBytesPerPrincipal: 1_000,
      waitForReplicas: { replicas: 1, timeoutMs: 500 },
      instanceId: 'instance-1',
      onListenerError: onError,
    } satisfies RedisJobStoreOptions;
    const recordOptions = { prefix: 'all:', buckets: 2, maxRecords: 100 };
    const client = createClient({ url: 'redis://127.0.0.1:1' }) as unknown as RedisClient;
    const stores = [
      new RedisJobStore({
        url: 'redis://127.0.0.1:1',
        clientOptions: { name: 'gateway' },
        ...connection,
        ...jobOptions,
      }),
      new RedisJobStore({
        cluster: { rootNodes: [{ url: 'redis://127.0.0.1:1' }] },
        ...connection,
        ...jobOptions,
      }),
      new RedisJobStore({ client, ...connection, ...jobOptions }),
      // A url left unset (an undefined option) still means the default.
      new RedisJobStore({ url: undefined, ...connection, sweepIntervalMs: 0 } as never),
      new RedisRecordStore({
        url: 'rediss://user:pw@127.0.0.1:1/2',
        clientOptions: {},
        ...connection,
        ...recordOptions,
      }),
      new RedisRecordStore({ url: 'unix:///tmp/none.sock', ...connection, ...recordOptions }),
      new RedisRecordStore({ client, ...connection, ...recordOptions }),
    ];
    await Promise.all(stores.map((store) => store.close()));
  });
});
