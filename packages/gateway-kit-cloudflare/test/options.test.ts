import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import {
  DurableCallbackOutbox,
  type DurableCallbackOutboxOptions,
} from '../src/durable-callback-outbox.ts';
import { DurableJobStore, type DurableJobStoreOptions } from '../src/durable-job-store.ts';
import { DurableRecordStore, type DurableRecordStoreOptions } from '../src/durable-record-store.ts';
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

// Called only when a cancel listener throws: refused when the store is made, not then.
it.each([
  ['log', 'a string'],
  [5, 'the number 5'],
  [null, 'null'],
  [true, 'true'],
  [{}, 'an object'],
])(
  'new DurableJobStore({ onListenerError: %o }) is refused: expected a function',
  (value, kind) => {
    expect(() => new DurableJobStore(storage, { onListenerError: value as never })).toThrow(
      new GatewayConfigError(
        `new DurableJobStore: onListenerError is ${kind}: expected a function.`,
      ),
    );
  },
);

// Called on every read and write: refused when the store is made, not at its first use.
describe('a `now` that is not a function is refused: expected a function', () => {
  const stores = {
    'new DurableJobStore': (now: unknown) => new DurableJobStore(storage, { now } as object),
    'new DurableRecordStore': (now: unknown) => new DurableRecordStore(storage, { now } as object),
    'new DurableCallbackOutbox': (now: unknown) =>
      new DurableCallbackOutbox(storage, { now } as object),
  } as const;
  it.each(
    Object.keys(stores).flatMap((factory) =>
      (
        [
          [1_700_000_000_000, 'the number 1700000000000'],
          ['2026-01-01T00:00:00Z', 'a string'],
          [null, 'null'],
          [new Date(0), 'a Date instance'],
          [{ now: () => 0 }, 'an object'],
        ] as const
      ).map(([value, kind]) => [factory, value, kind] as const),
    ),
  )('%s({ now: %o })', (factory, value, kind) => {
    const create = () => stores[factory as keyof typeof stores](value);
    expect(create).toThrow(
      new GatewayConfigError(`${factory}: now is ${kind}: expected a function returning epoch ms.`),
    );
  });

  it.each(Object.keys(stores))(
    '%s with a function or an undefined now (from JavaScript, the default) reaches the storage',
    (factory) => {
      const create = stores[factory as keyof typeof stores];
      for (const now of [() => 0, undefined])
        expect(() => create(now)).toThrow('storage used before the options were checked');
    },
  );
});

it('an onListenerError undefined (from JavaScript) is the default: the storage is reached', () => {
  expect(() => new DurableJobStore(storage, { onListenerError: undefined } as object)).toThrow(
    'storage used before the options were checked',
  );
});

describe('an option name the store does not know is refused, naming it and the known ones', () => {
  const JOB =
    'prefix, maxJobs, maxBytes, retentionMs, maxFinishedPerOwner, now, onListenerError, maxResumes, callbackOutbox';
  const RECORD = 'prefix, maxRecords, maxBytes, maxMembers, now';
  const OUTBOX =
    'prefix, leaseMs, pollIntervalMs, maxEntries, maxEntriesPerPrincipal, maxBytesPerPrincipal, ttlMs, now';
  it.each([
    [
      `new DurableJobStore: unknown option "maxJob" (known: ${JOB}).`,
      () => new DurableJobStore(storage, { maxJob: 5 } as object),
    ],
    [
      // An option of another store, or of the gateway: not this one's.
      `new DurableJobStore: unknown options "leaseMs", "maxRecords" (known: ${JOB}).`,
      () => new DurableJobStore(storage, { leaseMs: 1, maxRecords: 1, maxJobs: 1 } as object),
    ],
    [
      `new DurableRecordStore: unknown option "maxRecord" (known: ${RECORD}).`,
      () => new DurableRecordStore(storage, { maxRecord: 5 } as object),
    ],
    [
      `new DurableRecordStore: unknown option "maxJobs" (known: ${RECORD}).`,
      () => new DurableRecordStore(storage, { maxJobs: 5 } as object),
    ],
    [
      `new DurableCallbackOutbox: unknown option "leaseMss" (known: ${OUTBOX}).`,
      () => new DurableCallbackOutbox(storage, { leaseMss: 1 } as object),
    ],
    [
      `new DurableCallbackOutbox: unknown options "ttl", "pollInterval" (known: ${OUTBOX}).`,
      () => new DurableCallbackOutbox(storage, { ttl: 1, pollInterval: 1 } as object),
    ],
  ])('%s', (message, create) => {
    expect(create).toThrow(new GatewayConfigError(message));
  });

  it('the message holds no option value (an unknown option may hold a secret)', () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
    for (const create of [
      () => new DurableJobStore(storage, { signingSecret: secret } as object),
      () => new DurableRecordStore(storage, { signingSecret: secret } as object),
      () => new DurableCallbackOutbox(storage, { signingSecret: secret } as object),
    ]) {
      expect(create).toThrow(/unknown option "signingSecret"/);
      expect(create).not.toThrow(secret);
      expect(create).not.toThrow(/c2VjcmV0/);
    }
  });

  it.each([[null], [5], ['maxJobs'], [[]], [[{ maxJobs: 5 }]]])(
    'options that are not an object (%o) are refused',
    (options) => {
      for (const [factory, create] of [
        ['new DurableJobStore', () => new DurableJobStore(storage, options as object)],
        ['new DurableRecordStore', () => new DurableRecordStore(storage, options as object)],
        ['new DurableCallbackOutbox', () => new DurableCallbackOutbox(storage, options as object)],
      ] as const)
        expect(create).toThrow(
          new RegExp(`^${factory}: options is .*: expected an options object\\.$`),
        );
    },
  );

  it('every documented option is accepted (the storage is reached), and no options at all', () => {
    const jobs: Required<DurableJobStoreOptions> = {
      prefix: 'gw_',
      maxJobs: 1,
      maxBytes: 1,
      retentionMs: 1,
      maxFinishedPerOwner: 1,
      now: () => 0,
      onListenerError: () => {},
      maxResumes: 0,
      callbackOutbox: {} as DurableCallbackOutbox,
    };
    const records: Required<DurableRecordStoreOptions> = {
      prefix: 'gw_',
      maxRecords: 1,
      maxBytes: 1,
      maxMembers: 1,
      now: () => 0,
    };
    const outbox: Required<DurableCallbackOutboxOptions> = {
      prefix: 'gw_',
      leaseMs: 1,
      pollIntervalMs: 1,
      maxEntries: 1,
      maxEntriesPerPrincipal: 1,
      maxBytesPerPrincipal: 1,
      ttlMs: 1,
      now: () => 0,
    };
    for (const create of [
      () => new DurableJobStore(storage, jobs),
      () => new DurableRecordStore(storage, records),
      () => new DurableCallbackOutbox(storage, outbox),
      () => new DurableJobStore(storage),
      () => new DurableRecordStore(storage, undefined),
      () => new DurableCallbackOutbox(storage, {}),
    ])
      expect(create).toThrow('storage used before the options were checked');
  });
});
