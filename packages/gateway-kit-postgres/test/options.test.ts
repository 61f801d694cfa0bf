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
      'new PostgresJobStore: leaseMs is the number 0: expected a positive integer (ms).',
    ],
    [
      { sweepIntervalMs: -1 },
      'new PostgresJobStore: sweepIntervalMs is the number -1: expected a finite number ≥ 0.',
    ],
    [
      { commandTimeoutMs: 0 },
      'new PostgresJobStore: commandTimeoutMs is the number 0: expected a positive integer (ms).',
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
