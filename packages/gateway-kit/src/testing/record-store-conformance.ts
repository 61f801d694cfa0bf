import type * as FastCheck from 'fast-check';
import type { RecordStore, VersionedRecord } from '../records/record-store.ts';
import {
  assert,
  assertEqual,
  type ConformanceTestApi,
  type FastCheckModule,
  sleep,
} from './conformance-kit.ts';
import { registerSetConformance } from './record-store-sets-conformance.ts';

/** A factory of empty record stores, sync or async. */
export type RecordStoreFactory = () => RecordStore | Promise<RecordStore>;

/**
 * What {@link recordStoreConformance} needs to know about the adapter under test.
 *
 * @example
 * const options: RecordStoreConformanceOptions = {
 *   name: 'RedisRecordStore',
 *   createStore: () => new RedisRecordStore({ prefix: `test:${crypto.randomUUID()}:` }),
 *   test: { describe, it },
 *   fc,
 * };
 */
export interface RecordStoreConformanceOptions {
  /** Names the top-level `describe` block. */
  readonly name: string;
  /** Returns a new, empty store. Called once per test (and once per model-based run). */
  readonly createStore: RecordStoreFactory;
  /** Disposes of a store after its test. Default: `store.close()`. */
  readonly cleanup?: (store: RecordStore) => void | Promise<void>;
  /** `describe` and `it` of your test runner. */
  readonly test: ConformanceTestApi;
  /** The `fast-check` module (v4): `import * as fc from 'fast-check'`. */
  readonly fc: FastCheckModule;
  /** Runs of the model-based property. Default 100. */
  readonly numRuns?: number;
  /** Callers in the concurrent create, replace and delete tests. Default 16. */
  readonly concurrency?: number;
  /** Per-test timeout handed to `it`, for slow backends. Default: the runner's own. */
  readonly timeoutMs?: number;
  /**
   * How the time-to-live cases move time. They are always registered:
   *
   * - With `advanceTime` (a fake clock, e.g. `MemoryRecordStore`'s `now` option), `ttlMs` may be
   *   anything (default 60 000) and the cases take no real time.
   * - Without it, the suite sleeps for real, so keep `ttlMs` short: the default is then 150 ms
   *   (50–200 ms is a good range; the cases sleep about 10 × `ttlMs` in total). A backend whose
   *   expiry is coarser than a few milliseconds needs a larger `ttlMs`.
   *
   * `createStore` defaults to the main one; give one when only some stores share the fake clock.
   */
  readonly ttl?: {
    /** Time to live the cases give records, in ms: 60 000 with `advanceTime`, else 150. */
    readonly ttlMs?: number;
    /** Moves the store's clock forward by `ms`; without it, the cases sleep for real. */
    readonly advanceTime?: (ms: number) => void | Promise<void>;
    /** Returns a new, empty store on that clock; defaults to the main `createStore`. */
    readonly createStore?: RecordStoreFactory;
  };
}

/** TTL of records that must not expire during a test (the suite's tests take far less). */
const LONG_TTL_MS = 60 * 60 * 1000;

let suiteCounter = 0;

/**
 * Registers the record store conformance suite: the guarantees of {@link RecordStore} that the
 * gateway's idempotency keys and approvals rely on, checked against your adapter. Call it at the
 * top level of a test file. It never imports a test runner (so it works with Vitest, Jest, Bun
 * and `node:test`), and it uses real timers: don't install fake timers around it; move the
 * store's clock through `ttl.advanceTime` instead.
 *
 * Covered: atomic create-if-absent (also with `concurrency` racing creates of one key), reads,
 * compare-and-set `replace` and `delete` (stale, future and racing versions), time to live (a record
 * is never returned, replaced or deleted after it expired; `replace` restarts the TTL), JSON round
 * trips, copy isolation of inputs and outputs, and a model-based test of random
 * create/get/replace/delete sequences against a `Map` (`fc.asyncModelRun`); time-ordered sets
 * (bounded and racing adds, expiry order, paging, removal, time to live).
 *
 * Keys are unique per registration, so a store shared behind the scenes (one Redis database) works.
 *
 * @example
 * // redis-record-store.test.ts
 * import * as fc from 'fast-check';
 * import { describe, it } from 'vitest';
 * import { recordStoreConformance } from '@svc/gateway-kit/testing';
 * import { RedisRecordStore } from './redis-record-store.ts';
 *
 * recordStoreConformance({
 *   name: 'RedisRecordStore',
 *   createStore: () =>
 *     new RedisRecordStore({ url: process.env.REDIS_URL, prefix: `t:${crypto.randomUUID()}:` }),
 *   test: { describe, it },
 *   fc,
 *   ttl: { ttlMs: 150 }, // real sleeps: Redis expires on its own clock
 * });
 *
 * @example
 * // With a fake clock the TTL cases take no real time.
 * let clock = Date.now();
 * recordStoreConformance({
 *   name: 'MemoryRecordStore',
 *   createStore: () => new MemoryRecordStore({ now: () => clock }),
 *   test: { describe, it },
 *   fc,
 *   ttl: { ttlMs: 60_000, advanceTime: (ms) => { clock += ms; } },
 * });
 */
export function recordStoreConformance(options: RecordStoreConformanceOptions): void {
  // The real module's types, for the suites' own code (FastCheckModule keeps them out of the
  // published declarations).
  const fc = options.fc as unknown as typeof FastCheck;
  const numRuns = options.numRuns ?? 100;
  const concurrency = options.concurrency ?? 16;
  const cleanup = options.cleanup ?? ((store: RecordStore) => store.close());
  const { describe } = options.test;
  const it = (name: string, body: () => Promise<void>): void => {
    if (options.timeoutMs === undefined) options.test.it(name, body);
    else options.test.it(name, body, options.timeoutMs);
  };
  const suiteId = `rc${++suiteCounter}`;
  let idCounter = 0;
  const nextKey = (label: string): string => `${suiteId}:${label}:${++idCounter}`;

  async function withStore(
    body: (store: RecordStore) => Promise<void>,
    factory: RecordStoreFactory = options.createStore,
  ): Promise<void> {
    const store = await factory();
    try {
      await body(store);
    } finally {
      await cleanup(store);
    }
  }

  /** Creates a record that must not exist yet. */
  async function created<T>(
    store: RecordStore,
    key: string,
    value: T,
    ttlMs = LONG_TTL_MS,
  ): Promise<VersionedRecord<T>> {
    const result = await store.create(key, value, ttlMs);
    assert(result.created, `create of the new key ${key} must report created: true`);
    return result.record;
  }

  describe(`RecordStore conformance: ${options.name}`, () => {
    describe('create and get', () => {
      it('creates a record at version 1 holding exactly the given value', async () => {
        await withStore(async (store) => {
          const key = nextKey('new');
          const value = richValue();
          const result = await store.create(key, value, LONG_TTL_MS);
          assertEqual(result, { created: true, record: { value, version: 1 } }, 'create result');
          assertEqual(await store.get(key), { value, version: 1 }, 'record read back');
        });
      });

      it('round-trips JSON values of every kind', async () => {
        await withStore(async (store) => {
          const values: unknown[] = [
            richValue(),
            'just a string',
            '',
            0,
            -12.5,
            Number.MAX_SAFE_INTEGER,
            true,
            false,
            null,
            [],
            {},
            [1, 'two', null, { three: [3] }],
          ];
          for (const [index, value] of values.entries()) {
            const key = nextKey(`kind-${index}`);
            await created(store, key, value);
            assertEqual((await store.get(key))?.value, value, `value ${JSON.stringify(value)}`);
          }
        });
      });

      it('a second create of the same key returns the existing record and changes nothing', async () => {
        await withStore(async (store) => {
          const key = nextKey('dup');
          const first = await created(store, key, { claim: 'first' });
          const second = await store.create(key, { claim: 'second' }, LONG_TTL_MS);
          assertEqual(second, { created: false, record: first }, 'second create');
          assertEqual(await store.get(key), first, 'stored record');
        });
      });

      it(`${concurrency} concurrent creates of one key: exactly one creates it, all see the same record`, async () => {
        await withStore(async (store) => {
          const key = nextKey('race');
          const results = await Promise.all(
            Array.from({ length: concurrency }, (_, i) =>
              store.create(key, { writer: i }, LONG_TTL_MS),
            ),
          );
          const winners = results.filter((result) => result.created);
          assertEqual(winners.length, 1, 'number of creates reporting created: true');
          const winner = winners[0]!.record;
          assertEqual(winner.version, 1, 'version of the created record');
          for (const result of results)
            assertEqual(result.record, winner, 'record seen by a racing create');
          assertEqual(await store.get(key), winner, 'stored record');
        });
      });

      it('get, replace and delete of an unknown key report its absence', async () => {
        await withStore(async (store) => {
          const key = nextKey('missing');
          assertEqual(await store.get(key), undefined, 'get');
          assertEqual(await store.replace(key, 1, { x: 1 }, LONG_TTL_MS), undefined, 'replace');
          assertEqual(await store.delete(key, 1), false, 'delete');
          assertEqual(await store.get(key), undefined, 'get after replace and delete');
        });
      });

      it('keys are exact: similar keys are different records', async () => {
        await withStore(async (store) => {
          const base = nextKey('exact');
          const keys = [base, `${base}x`, `${base}:`, `${base} `, `${base}é`, base.toUpperCase()];
          for (const [index, key] of keys.entries()) await created(store, key, { index });
          for (const [index, key] of keys.entries())
            assertEqual(await store.get(key), { value: { index }, version: 1 }, `record ${key}`);
        });
      });
    });

    describe('compare-and-set replace', () => {
      it('replaces at the current version: version + 1, the new value stored', async () => {
        await withStore(async (store) => {
          const key = nextKey('replace');
          let record = await created(store, key, { step: 0 });
          for (let step = 1; step <= 3; step++) {
            const next = await store.replace(key, record.version, { step }, LONG_TTL_MS);
            assertEqual(next, { value: { step }, version: record.version + 1 }, `replace ${step}`);
            assertEqual(await store.get(key), next, `record after replace ${step}`);
            record = next!;
          }
        });
      });

      it('a stale or future version returns undefined and changes nothing', async () => {
        await withStore(async (store) => {
          const key = nextKey('stale');
          const first = await created(store, key, { step: 0 });
          const second = await store.replace(key, first.version, { step: 1 }, LONG_TTL_MS);
          assert(second !== undefined, 'replace at the current version must succeed');
          for (const version of [first.version, second.version + 1, 0, -1]) {
            assertEqual(
              await store.replace(key, version, { step: 'stale' }, LONG_TTL_MS),
              undefined,
              `replace at version ${version}`,
            );
          }
          assertEqual(await store.get(key), second, 'stored record');
        });
      });

      it(`${concurrency} concurrent replaces at the same version: exactly one wins`, async () => {
        await withStore(async (store) => {
          const key = nextKey('replace-race');
          const record = await created(store, key, { writer: 'none' });
          const results = await Promise.all(
            Array.from({ length: concurrency }, (_, i) =>
              store.replace(key, record.version, { writer: i }, LONG_TTL_MS),
            ),
          );
          const winners = results.filter((result) => result !== undefined);
          assertEqual(winners.length, 1, 'number of successful replaces');
          assertEqual(winners[0]!.version, record.version + 1, 'version');
          assertEqual(await store.get(key), winners[0], 'stored record');
        });
      });
    });

    describe('compare-and-set delete', () => {
      it('deletes at the current version only', async () => {
        await withStore(async (store) => {
          const key = nextKey('delete');
          const first = await created(store, key, { step: 0 });
          const second = await store.replace(key, first.version, { step: 1 }, LONG_TTL_MS);
          assert(second !== undefined, 'replace at the current version must succeed');
          for (const version of [first.version, second.version + 1]) {
            assertEqual(await store.delete(key, version), false, `delete at version ${version}`);
            assertEqual(await store.get(key), second, `record after delete at ${version}`);
          }
          assertEqual(await store.delete(key, second.version), true, 'delete at the version');
          assertEqual(await store.get(key), undefined, 'record after delete');
          assertEqual(await store.delete(key, second.version), false, 'second delete');
          assertEqual(
            await store.replace(key, second.version, { step: 2 }, LONG_TTL_MS),
            undefined,
            'replace after delete',
          );
        });
      });

      it('a deleted key can be created again, from version 1', async () => {
        await withStore(async (store) => {
          const key = nextKey('recreate');
          const first = await created(store, key, { round: 1 });
          assert(await store.delete(key, first.version), 'delete at the version');
          const again = await store.create(key, { round: 2 }, LONG_TTL_MS);
          assertEqual(
            again,
            { created: true, record: { value: { round: 2 }, version: 1 } },
            'create after delete',
          );
        });
      });

      it(`${concurrency} concurrent deletes at the same version: exactly one deletes`, async () => {
        await withStore(async (store) => {
          const key = nextKey('delete-race');
          const record = await created(store, key, { x: 1 });
          const results = await Promise.all(
            Array.from({ length: concurrency }, () => store.delete(key, record.version)),
          );
          assertEqual(results.filter(Boolean).length, 1, 'number of successful deletes');
          assertEqual(await store.get(key), undefined, 'record after the deletes');
        });
      });

      it('replace vs delete at the same version: exactly one wins', async () => {
        await withStore(async (store) => {
          for (let round = 0; round < 10; round++) {
            const key = nextKey('replace-delete');
            const record = await created(store, key, { round });
            const [replaced, deleted] = await Promise.all([
              store.replace(key, record.version, { round, replaced: true }, LONG_TTL_MS),
              store.delete(key, record.version),
            ]);
            assert(
              (replaced !== undefined) !== deleted,
              `exactly one must win: ${JSON.stringify({ replaced, deleted })}`,
            );
            assertEqual(await store.get(key), replaced, 'stored record');
          }
        });
      });
    });

    describe('copy isolation', () => {
      it('changing a value after create or replace does not change the stored record', async () => {
        await withStore(async (store) => {
          const key = nextKey('input');
          const value = richValue();
          const record = await created(store, key, value);
          const before = structuredClone(record);
          tamper(value);
          assertEqual(await store.get(key), before, 'record after changing the create input');
          const replacement = richValue();
          const replaced = await store.replace(key, record.version, replacement, LONG_TTL_MS);
          const afterReplace = structuredClone(replaced);
          tamper(replacement);
          assertEqual(await store.get(key), afterReplace, 'record after changing the replacement');
        });
      });

      it('changing a returned record does not change the stored record', async () => {
        await withStore(async (store) => {
          const key = nextKey('output');
          const returned: VersionedRecord<unknown>[] = [];
          returned.push((await store.create(key, richValue(), LONG_TTL_MS)).record);
          returned.push((await store.create(key, richValue(), LONG_TTL_MS)).record);
          returned.push((await store.get(key))!);
          const before = structuredClone(await store.get(key));
          for (const record of returned) tamper(record);
          assertEqual(await store.get(key), before, 'record after changing returned copies');
          const replaced = await store.replace(key, 1, richValue(), LONG_TTL_MS);
          assert(replaced !== undefined, 'replace at version 1 must succeed');
          const afterReplace = structuredClone(replaced);
          tamper(replaced);
          assertEqual(
            await store.get(key),
            afterReplace,
            'record after changing the replace result',
          );
        });
      });
    });

    describe('model-based', () => {
      it('matches a Map under random create/get/replace/delete sequences', async () => {
        const slot = fc.constantFrom(...SLOTS);
        const value = fc.record({
          n: fc.integer({ min: -1000, max: 1000 }),
          s: fc.string({ maxLength: 6 }),
          tags: fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 3 }),
        });
        const versionOffset = fc.constantFrom(0, 0, 0, -1, 1);
        const commands = fc.commands<RecordModel, RecordStore, false>(
          [
            fc.record({ slot, value }).map((c) => new CreateRecordCommand(c.slot, c.value)),
            slot.map((s) => new GetRecordCommand(s)),
            fc
              .record({ slot, versionOffset, value })
              .map((c) => new ReplaceRecordCommand(c.slot, c.versionOffset, c.value)),
            fc
              .record({ slot, versionOffset })
              .map((c) => new DeleteRecordCommand(c.slot, c.versionOffset)),
            fc.constant(new ReadAllCommand()),
          ],
          { maxCommands: 40 },
        );
        await fc.assert(
          fc.asyncProperty(commands, async (cmds) => {
            await withStore(async (store) => {
              const model: RecordModel = { prefix: `${nextKey('model')}/`, records: new Map() };
              await fc.asyncModelRun(() => ({ model, real: store }), cmds);
            });
          }),
          { numRuns },
        );
      });
    });

    const realTime = options.ttl?.advanceTime === undefined;
    const ttlMs = options.ttl?.ttlMs ?? (realTime ? 150 : 60_000);
    const advanceTime = options.ttl?.advanceTime ?? sleep;
    const inTtlStore = (body: (store: RecordStore) => Promise<void>) =>
      withStore(body, options.ttl?.createStore);
    // Real clocks need slack either side of the expiry; a fake clock needs only 1 ms.
    const early = realTime ? Math.floor(ttlMs / 4) : ttlMs - 1;
    const pastExpiry = realTime ? ttlMs + Math.max(20, Math.floor(ttlMs / 5)) : ttlMs + 1;

    registerSetConformance({
      describe,
      it,
      withStore: (body) => withStore(body),
      inTtlStore,
      nextKey,
      advanceTime,
      ttlMs,
      early,
      pastExpiry,
      concurrency,
    });

    describe(`time to live (${ttlMs} ms, ${realTime ? 'real time' : 'advanceTime'})`, () => {
      it('a record is readable before its TTL and never returned after it', async () => {
        await inTtlStore(async (store) => {
          const key = nextKey('ttl');
          const record = await created(store, key, { x: 1 }, ttlMs);
          await advanceTime(early);
          assertEqual(await store.get(key), record, 'record before its TTL ran out');
          await advanceTime(pastExpiry - early);
          assertEqual(await store.get(key), undefined, 'record after its TTL ran out');
          assertEqual(await store.get(key), undefined, 'record read again after its TTL');
        });
      });

      it('an expired record can be neither replaced nor deleted, and is not resurrected', async () => {
        await inTtlStore(async (store) => {
          const replaceKey = nextKey('ttl-replace');
          const deleteKey = nextKey('ttl-delete');
          const toReplace = await created(store, replaceKey, { x: 1 }, ttlMs);
          const toDelete = await created(store, deleteKey, { x: 2 }, ttlMs);
          await advanceTime(pastExpiry);
          assertEqual(
            await store.replace(replaceKey, toReplace.version, { x: 'late' }, LONG_TTL_MS),
            undefined,
            'replace of an expired record',
          );
          assertEqual(await store.get(replaceKey), undefined, 'record after the late replace');
          assertEqual(
            await store.delete(deleteKey, toDelete.version),
            false,
            'delete of an expired record',
          );
        });
      });

      it('create of an expired key creates a new record at version 1', async () => {
        await inTtlStore(async (store) => {
          const key = nextKey('ttl-create');
          const first = await created(store, key, { round: 1 }, ttlMs);
          assert(
            (await store.replace(key, first.version, { round: 1.5 }, ttlMs)) !== undefined,
            'replace before expiry',
          );
          await advanceTime(pastExpiry);
          assertEqual(
            await store.create(key, { round: 2 }, LONG_TTL_MS),
            { created: true, record: { value: { round: 2 }, version: 1 } },
            'create after expiry',
          );
          assertEqual(
            await store.get(key),
            { value: { round: 2 }, version: 1 },
            'record after re-create',
          );
        });
      });

      it('replace restarts the TTL from the time of the replace, with the new ttlMs', async () => {
        await inTtlStore(async (store) => {
          const key = nextKey('ttl-renew');
          const record = await created(store, key, { step: 0 }, ttlMs);
          await advanceTime(ttlMs / 2);
          const renewed = await store.replace(key, record.version, { step: 1 }, ttlMs);
          assert(renewed !== undefined, 'replace before expiry must succeed');
          // 1.25 × ttlMs after the create: past the original expiry, not past the renewed one.
          await advanceTime((ttlMs * 3) / 4);
          assertEqual(await store.get(key), renewed, 'record past its original TTL');
          await advanceTime(pastExpiry);
          assertEqual(await store.get(key), undefined, 'record past its renewed TTL');
          // And a long TTL given to replace keeps a short-lived record.
          const extendKey = nextKey('ttl-extend');
          const short = await created(store, extendKey, { step: 0 }, ttlMs);
          const extended = await store.replace(extendKey, short.version, { step: 1 }, LONG_TTL_MS);
          await advanceTime(pastExpiry);
          assertEqual(await store.get(extendKey), extended, 'record whose TTL replace extended');
        });
      });

      it('a second create of a live key does not extend its TTL', async () => {
        await inTtlStore(async (store) => {
          const key = nextKey('ttl-second-create');
          await created(store, key, { x: 1 }, ttlMs);
          await advanceTime(early);
          const again = await store.create(key, { x: 2 }, LONG_TTL_MS);
          assert(!again.created, 'second create of a live key must report created: false');
          await advanceTime(pastExpiry - early);
          assertEqual(await store.get(key), undefined, 'record after its original TTL');
        });
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Model-based test: a Map of key → { value, version } is the reference.

/** The keys the model-based test works on (each under a per-run prefix). */
const SLOTS = ['a', 'b', 'c', 'd'] as const;

interface RecordModel {
  /** Unique per run, so keys never collide across runs. */
  readonly prefix: string;
  readonly records: Map<string, { value: unknown; version: number }>;
}

class CreateRecordCommand implements FastCheck.AsyncCommand<RecordModel, RecordStore> {
  readonly slot: string;
  readonly value: unknown;
  constructor(slot: string, value: unknown) {
    this.slot = slot;
    this.value = value;
  }
  check(): boolean {
    return true;
  }
  async run(model: RecordModel, store: RecordStore): Promise<void> {
    const key = `${model.prefix}${this.slot}`;
    const result = await store.create(key, this.value, LONG_TTL_MS);
    const existing = model.records.get(key);
    const expected = existing ?? { value: this.value, version: 1 };
    if (!existing) model.records.set(key, expected);
    assertEqual(result, { created: existing === undefined, record: expected }, 'create result');
  }
  toString(): string {
    return `create(${this.slot}, ${JSON.stringify(this.value)})`;
  }
}

class GetRecordCommand implements FastCheck.AsyncCommand<RecordModel, RecordStore> {
  readonly slot: string;
  constructor(slot: string) {
    this.slot = slot;
  }
  check(): boolean {
    return true;
  }
  async run(model: RecordModel, store: RecordStore): Promise<void> {
    const key = `${model.prefix}${this.slot}`;
    assertEqual(await store.get(key), model.records.get(key), 'record read back');
  }
  toString(): string {
    return `get(${this.slot})`;
  }
}

class ReplaceRecordCommand implements FastCheck.AsyncCommand<RecordModel, RecordStore> {
  readonly slot: string;
  readonly versionOffset: number;
  readonly value: unknown;
  constructor(slot: string, versionOffset: number, value: unknown) {
    this.slot = slot;
    this.versionOffset = versionOffset;
    this.value = value;
  }
  check(): boolean {
    return true;
  }
  async run(model: RecordModel, store: RecordStore): Promise<void> {
    const key = `${model.prefix}${this.slot}`;
    const current = model.records.get(key);
    const version = (current?.version ?? 1) + this.versionOffset;
    const result = await store.replace(key, version, this.value, LONG_TTL_MS);
    if (!current || this.versionOffset !== 0) {
      assertEqual(result, undefined, `replace ${this}`);
      return;
    }
    current.value = this.value;
    current.version += 1;
    assertEqual(result, current, `replace ${this}`);
  }
  toString(): string {
    return `replace(${this.slot}, version${this.versionOffset >= 0 ? '+' : ''}${this.versionOffset}, ${JSON.stringify(this.value)})`;
  }
}

class DeleteRecordCommand implements FastCheck.AsyncCommand<RecordModel, RecordStore> {
  readonly slot: string;
  readonly versionOffset: number;
  constructor(slot: string, versionOffset: number) {
    this.slot = slot;
    this.versionOffset = versionOffset;
  }
  check(): boolean {
    return true;
  }
  async run(model: RecordModel, store: RecordStore): Promise<void> {
    const key = `${model.prefix}${this.slot}`;
    const current = model.records.get(key);
    const deleted = await store.delete(key, (current?.version ?? 1) + this.versionOffset);
    const expected = current !== undefined && this.versionOffset === 0;
    if (expected) model.records.delete(key);
    assertEqual(deleted, expected, `delete ${this}`);
  }
  toString(): string {
    return `delete(${this.slot}, version${this.versionOffset >= 0 ? '+' : ''}${this.versionOffset})`;
  }
}

/** Reads every slot the model knows of, and checks the whole state at once. */
class ReadAllCommand implements FastCheck.AsyncCommand<RecordModel, RecordStore> {
  check(): boolean {
    return true;
  }
  async run(model: RecordModel, store: RecordStore): Promise<void> {
    for (const slot of SLOTS) {
      const key = `${model.prefix}${slot}`;
      assertEqual(await store.get(key), model.records.get(key), `record ${slot} read back`);
    }
  }
  toString(): string {
    return 'readAll()';
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures and assertions (self-contained so the suite needs no `expect`).

/** A value with nesting, arrays, unicode and every JSON scalar. */
function richValue(): Record<string, unknown> {
  return {
    fingerprint: 'f00d',
    state: 'in_progress',
    count: 3,
    ratio: 0.25,
    flag: true,
    nothing: null,
    text: 'Grüße, 世界 🌍 "quoted" \\ \n',
    nested: { deeper: { value: 1, list: [1, 2, 3] } },
    list: [{ a: 1 }, 'two', [3]],
    empty: { object: {}, array: [] },
  };
}

/** Tries to change a value every way a careless caller might; frozen values may throw. */
function tamper(target: unknown): void {
  const attempts: ((value: Record<string, unknown>) => void)[] = [
    (value) => {
      value.state = 'tampered';
    },
    (value) => {
      value.version = 999;
    },
    (value) => {
      (value.value as Record<string, unknown>).state = 'tampered';
    },
    (value) => {
      ((value.value ?? value) as { nested: { deeper: { value: number } } }).nested.deeper.value =
        999;
    },
    (value) => {
      (
        (value.value ?? value) as { nested: { deeper: { list: number[] } } }
      ).nested.deeper.list.push(999);
    },
    (value) => {
      delete (value.value as Record<string, unknown>).fingerprint;
    },
    (value) => {
      delete value.fingerprint;
    },
  ];
  for (const attempt of attempts) {
    try {
      attempt(target as Record<string, unknown>);
    } catch {
      // Frozen copies reject the change (fine), or the shape does not apply to this target.
    }
  }
}
