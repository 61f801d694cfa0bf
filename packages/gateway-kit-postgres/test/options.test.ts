import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import { migrate, PostgresJobStore, PostgresRecordStore } from '../src/index.ts';

// Option checks run in the constructor, before any connection: no PostgreSQL needed.
const caps = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'];

describe('a cap on what callers make the store keep is a positive integer (0 is refused, never "unbounded")', () => {
  it.each(
    ['maxJobs', 'maxFinishedPerOwner', 'maxPendingCallbacks', 'maxPendingCallbacksPerPrincipal']
      .concat('maxPendingCallbackBytesPerPrincipal', 'poolSize')
      .flatMap((option) => caps.map((value) => [option, value] as const)),
  )(
    'new PostgresJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      expect(() => new PostgresJobStore({ [option]: value })).toThrow(GatewayConfigError);
      expect(() => new PostgresJobStore({ [option]: value })).toThrow(
        new RegExp(`^new PostgresJobStore: ${option} is .*: expected a positive integer\\.$`),
      );
    },
  );

  it.each(caps)(
    'new PostgresRecordStore({ maxRecords: %o }) throws a GatewayConfigError',
    (value) => {
      expect(() => new PostgresRecordStore({ maxRecords: value as number })).toThrow(
        /^new PostgresRecordStore: maxRecords is .*: expected a positive integer\.$/,
      );
    },
  );
});

describe('other options, in the same message style', () => {
  it.each([
    [
      { leaseMs: 0 },
      'new PostgresJobStore: leaseMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { sweepIntervalMs: -1 },
      'new PostgresJobStore: sweepIntervalMs is the number -1: expected 0 (off) or a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { commandTimeoutMs: 0 },
      'new PostgresJobStore: commandTimeoutMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    ],
    [
      { schema: 'x"; DROP TABLE jobs; --' },
      'new PostgresJobStore: schema is a string: expected letters, digits and _ (at most 63, not starting with a digit).',
    ],
  ])('%o → %s', (options, message) => {
    expect(() => new PostgresJobStore(options as never)).toThrow(new GatewayConfigError(message));
  });

  it('migrate refuses a schema name that is not a plain identifier, before connecting', async () => {
    await expect(migrate({ schema: 'a-b' })).rejects.toThrow(
      /^migrate: schema is a string: expected letters/,
    );
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
    'new PostgresJobStore({ %s: %o }) throws a GatewayConfigError naming the option',
    (option, value) => {
      const create = () => new PostgresJobStore({ [option]: value });
      expect(create).toThrow(GatewayConfigError);
      expect(create).toThrow(
        new RegExp(
          `^new PostgresJobStore: ${option} is .*: expected a positive integer of milliseconds up to 2147483647\\.$`,
        ),
      );
    },
  );

  it.each(durations.filter((value) => value !== 0))(
    'sweepIntervalMs %o is refused by both stores (0 turns the sweeper off)',
    (value) => {
      const expected = (factory: string) =>
        new RegExp(
          `^new ${factory}: sweepIntervalMs is .*: expected 0 \\(off\\) or a positive integer of milliseconds up to 2147483647\\.$`,
        );
      expect(() => new PostgresJobStore({ sweepIntervalMs: value as number })).toThrow(
        expected('PostgresJobStore'),
      );
      expect(() => new PostgresRecordStore({ sweepIntervalMs: value as number })).toThrow(
        expected('PostgresRecordStore'),
      );
    },
  );

  it.each(['commandTimeoutMs', 'connectTimeoutMs'])(
    'new PostgresRecordStore({ %s: 2 ** 31 }) throws too',
    (option) => {
      expect(() => new PostgresRecordStore({ [option]: 2 ** 31 })).toThrow(
        new RegExp(
          `^new PostgresRecordStore: ${option} is the number 2147483648: expected a positive integer of milliseconds up to 2147483647\\.$`,
        ),
      );
    },
  );

  it('2147483647 ms, the longest a timer holds, is accepted for each; sweepIntervalMs 0 too', async () => {
    const connectionString = 'postgres://gateway@127.0.0.1:1/app';
    const longest = Object.fromEntries(timers.map((option) => [option, MAX_TIMER_MS]));
    const stores = [
      new PostgresJobStore({ connectionString, onError: () => {}, ...longest }),
      new PostgresJobStore({ connectionString, onError: () => {}, sweepIntervalMs: 0 }),
      new PostgresJobStore({ connectionString, onError: () => {}, sweepIntervalMs: MAX_TIMER_MS }),
      new PostgresRecordStore({ connectionString, onError: () => {}, sweepIntervalMs: 0 }),
      new PostgresRecordStore({ connectionString, sweepIntervalMs: MAX_TIMER_MS }),
    ];
    for (const store of stores) await store.close();
  });
});
