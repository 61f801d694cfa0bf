import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import { DurableCallbackOutbox } from '../src/durable-callback-outbox.ts';
import { DurableJobStore } from '../src/durable-job-store.ts';
import { DurableRecordStore } from '../src/durable-record-store.ts';
import type { DurableStorage } from '../src/durable-storage.ts';

// Option checks run before the storage is touched: a storage that throws on use stands in.
const unchecked = (): never => {
  throw new Error('storage used before the options were checked');
};
const storage = {
  sql: { exec: unchecked },
  transactionSync: unchecked,
} as unknown as DurableStorage;
const bad = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'];

describe('a cap on what callers make the store keep is a positive integer (0 is refused)', () => {
  const stores = {
    'new DurableJobStore': [
      (options: object) => new DurableJobStore(storage, options),
      ['maxJobs', 'maxBytes', 'maxFinishedPerOwner', 'retentionMs'],
    ],
    'new DurableRecordStore': [
      (options: object) => new DurableRecordStore(storage, options),
      ['maxRecords', 'maxBytes', 'maxMembers'],
    ],
    'new DurableCallbackOutbox': [
      (options: object) => new DurableCallbackOutbox(storage, options),
      ['maxEntries', 'maxEntriesPerPrincipal', 'maxBytesPerPrincipal', 'leaseMs', 'ttlMs'],
    ],
  } as const;
  it.each(
    Object.entries(stores).flatMap(([factory, [, options]]) =>
      options.flatMap((option) => bad.map((value) => [factory, option, value] as const)),
    ),
  )('%s({ %s: %o }) throws a GatewayConfigError naming the option', (factory, option, value) => {
    const create = stores[factory as keyof typeof stores][0];
    expect(() => create({ [option]: value })).toThrow(GatewayConfigError);
    expect(() => create({ [option]: value })).toThrow(
      new RegExp(`^${factory}: ${option} is .*: expected a positive integer\\.$`),
    );
  });
});

it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10', 2 ** 31, 2 ** 53])(
  'new DurableCallbackOutbox({ pollIntervalMs: %o }) is refused: a timer waits for it',
  (value) => {
    const create = () => new DurableCallbackOutbox(storage, { pollIntervalMs: value as number });
    expect(create).toThrow(GatewayConfigError);
    expect(create).toThrow(
      /^new DurableCallbackOutbox: pollIntervalMs is .*: expected a positive integer of milliseconds up to 2147483647\.$/,
    );
  },
);

it('a pollIntervalMs of 2147483647 ms, the longest a timer holds, is accepted', () => {
  expect(() => new DurableCallbackOutbox(storage, { pollIntervalMs: 2_147_483_647 })).toThrow(
    'storage used before the options were checked',
  );
});

it.each([
  [
    () => new DurableJobStore(storage, { maxResumes: -1 }),
    'new DurableJobStore: maxResumes is the number -1: expected an integer ≥ 0.',
  ],
  [
    () => new DurableRecordStore(storage, { prefix: 'gw-' }),
    'new DurableRecordStore: prefix is a string: expected a letter or _, then letters, digits and _ (it names tables).',
  ],
])('other options, in the same message style: %s', (create, message) => {
  expect(create).toThrow(new GatewayConfigError(message));
});
