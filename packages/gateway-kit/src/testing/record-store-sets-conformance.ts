import type { RecordStore } from '../records/record-store.ts';
import { addToSets, removeFromSets } from '../records/set-batches.ts';
import { assert, assertEqual, type ConformanceTestApi } from './conformance-kit.ts';

/** What the set cases need from {@link recordStoreConformance}'s registration. */
export interface SetConformanceContext {
  readonly describe: ConformanceTestApi['describe'];
  readonly it: (name: string, body: () => Promise<void>) => void;
  readonly withStore: (body: (store: RecordStore) => Promise<void>) => Promise<void>;
  readonly inTtlStore: (body: (store: RecordStore) => Promise<void>) => Promise<void>;
  readonly nextKey: (label: string) => string;
  readonly advanceTime: (ms: number) => void | Promise<void>;
  readonly ttlMs: number;
  readonly early: number;
  readonly pastExpiry: number;
  readonly concurrency: number;
}

const LONG_TTL_MS = 60 * 60 * 1000;

const members = async (store: RecordStore, set: string, limit = 1_000): Promise<string[]> =>
  (await store.rangeOfSet(set, limit)).map((entry) => entry.member);

/**
 * The time-ordered sets of a {@link RecordStore} (per-principal quotas, the approvals index):
 * bounded adds, also under racing callers, expiry order, paging, removal and time to live.
 * Registered by `recordStoreConformance`.
 */
export function registerSetConformance(context: SetConformanceContext): void {
  const { describe, it, withStore, inTtlStore, nextKey, advanceTime } = context;

  describe('time-ordered sets', () => {
    it('adds members up to maxSize, refuses a new one beyond it, always accepts an existing one', async () => {
      await withStore(async (store) => {
        const set = nextKey('set-bounded');
        for (const member of ['a', 'b', 'c'])
          assert(await store.addToSet(set, member, LONG_TTL_MS, 3), `add of ${member}`);
        assertEqual(await store.addToSet(set, 'd', LONG_TTL_MS, 3), false, 'add beyond maxSize');
        assertEqual(
          await store.addToSet(set, 'b', LONG_TTL_MS, 3),
          true,
          'add of an existing member',
        );
        assertEqual((await members(store, set)).sort(), ['a', 'b', 'c'], 'members');
        await store.removeFromSet(set, 'a');
        assertEqual(await store.addToSet(set, 'd', LONG_TTL_MS, 3), true, 'add after a removal');
        await store.removeFromSet(set, 'not-there');
        assertEqual(await members(store, nextKey('set-empty')), [], 'a set never added to');
      });
    });

    it('a maxSize of 0 (or less) is a cap that admits no new member, never "unbounded"', async () => {
      await withStore(async (store) => {
        const set = nextKey('set-zero');
        assertEqual(await store.addToSet(set, 'a', LONG_TTL_MS, 0), false, 'a new member, cap 0');
        assertEqual(await members(store, set), [], 'members after the refused add');
        assert(await store.addToSet(set, 'a', LONG_TTL_MS), 'add without a cap');
        assert(await store.addToSet(set, 'b', LONG_TTL_MS * 2), 'second add without a cap');
        assertEqual(
          await store.addToSet(set, 'a', LONG_TTL_MS * 3, 0),
          true,
          'an existing member, cap 0',
        );
        assertEqual(await store.addToSet(set, 'c', LONG_TTL_MS, 0), false, 'a new one, cap 0');
        assertEqual(await store.addToSet(set, 'c', LONG_TTL_MS, -1), false, 'a new one, cap -1');
        assertEqual(await members(store, set), ['b', 'a'], 'members, the existing one extended');
        const other = nextKey('set-zero-batch');
        assertEqual(
          await addToSets(store, [
            { set: other, member: 'x', ttlMs: LONG_TTL_MS, maxSize: 5 },
            { set, member: 'd', ttlMs: LONG_TTL_MS, maxSize: 0 },
          ]),
          1,
          'index of the new member under cap 0 in a batch',
        );
        assertEqual(await members(store, other), [], 'the batch added nothing');
        assertEqual(await members(store, set), ['b', 'a'], 'the capped set is unchanged');
      });
    });

    it(`racing adds of ${context.concurrency} new members never exceed maxSize`, async () => {
      await withStore(async (store) => {
        const set = nextKey('set-race');
        const max = Math.max(1, Math.floor(context.concurrency / 2));
        const results = await Promise.all(
          Array.from({ length: context.concurrency }, (_, i) =>
            store.addToSet(set, `m${i}`, LONG_TTL_MS, max),
          ),
        );
        assertEqual(results.filter(Boolean).length, max, 'adds that succeeded');
        assertEqual((await members(store, set)).length, max, 'members kept');
      });
    });

    it('keeps members in expiry order, never moves one earlier, and pages strictly after a cursor', async () => {
      await withStore(async (store) => {
        const set = nextKey('set-order');
        await store.addToSet(set, 'late', LONG_TTL_MS * 3);
        await store.addToSet(set, 'early', LONG_TTL_MS);
        await store.addToSet(set, 'middle', LONG_TTL_MS * 2);
        await store.addToSet(set, 'late', LONG_TTL_MS);
        assertEqual(await members(store, set), ['early', 'middle', 'late'], 'expiry order');
        await store.addToSet(set, 'early', LONG_TTL_MS * 4);
        const firstPage = await store.rangeOfSet(set, 2);
        assertEqual(
          firstPage.map((entry) => entry.member),
          ['middle', 'late'],
          'first page',
        );
        const rest = await store.rangeOfSet(set, 2, firstPage[1]);
        assertEqual(
          rest.map((entry) => entry.member),
          ['early'],
          'page after the cursor',
        );
        assertEqual(await store.rangeOfSet(set, 0), [], 'a zero limit');
      });
    });

    it('a member stops counting and is no longer listed once its time to live ran out', async () => {
      await inTtlStore(async (store) => {
        const set = nextKey('set-ttl');
        assert(await store.addToSet(set, 'short', context.ttlMs, 1), 'first add');
        await advanceTime(context.early);
        assertEqual(await store.addToSet(set, 'other', context.ttlMs, 1), false, 'add while full');
        assertEqual(await members(store, set), ['short'], 'members before expiry');
        await advanceTime(context.pastExpiry - context.early);
        assertEqual(await members(store, set), [], 'members after expiry');
        assertEqual(await store.addToSet(set, 'other', context.ttlMs, 1), true, 'add after expiry');
      });
    });

    // Through `addToSets` of `@svc/gateway-kit/store`: the store's own `addToSets` when it has
    // one, else the set-by-set fallback; either way what the gateway's quota claims rely on.
    it('adds members to several sets all or none, and says which entry did not fit', async () => {
      await withStore(async (store) => {
        const jobs = nextKey('sets-jobs');
        const bytes = nextKey('sets-bytes');
        assert(await store.addToSet(bytes, 'held', LONG_TTL_MS, 2), 'first add');
        const refused = await addToSets(store, [
          { set: jobs, member: 'job-1', ttlMs: LONG_TTL_MS, maxSize: 5 },
          { set: bytes, member: 'job-1#0', ttlMs: LONG_TTL_MS, maxSize: 2 },
          { set: bytes, member: 'job-1#1', ttlMs: LONG_TTL_MS, maxSize: 2 },
        ]);
        assertEqual(refused, 2, 'index of the entry beyond maxSize');
        assertEqual(await members(store, jobs), [], 'first set after a refused batch');
        assertEqual(await members(store, bytes), ['held'], 'second set after a refused batch');
        const full = nextKey('sets-full');
        assert(await store.addToSet(full, 'other', LONG_TTL_MS, 1), 'add to a set of one');
        const refusedFirst = await addToSets(store, [
          { set: full, member: 'job-2', ttlMs: LONG_TTL_MS, maxSize: 1 },
          { set: bytes, member: 'job-2#0', ttlMs: LONG_TTL_MS, maxSize: 2 },
        ]);
        assertEqual(refusedFirst, 0, 'index when the first set is full');
        assertEqual(await members(store, full), ['other'], 'first set untouched');
        assertEqual(await members(store, bytes), ['held'], 'second set untouched');
        const added = await addToSets(store, [
          { set: jobs, member: 'job-3', ttlMs: LONG_TTL_MS, maxSize: 1 },
          { set: bytes, member: 'job-3#0', ttlMs: LONG_TTL_MS * 2, maxSize: 2 },
          { set: bytes, member: 'held', ttlMs: LONG_TTL_MS * 3, maxSize: 2 },
        ]);
        assertEqual(added, -1, 'a batch that fits (an existing member always does)');
        assertEqual(await members(store, jobs), ['job-3'], 'first set');
        assertEqual(await members(store, bytes), ['job-3#0', 'held'], 'second set, expiry order');
        assertEqual(
          await addToSets(store, [{ set: jobs, member: 'job-4', ttlMs: LONG_TTL_MS, maxSize: 1 }]),
          0,
          'a full set refuses a new member',
        );
        await removeFromSets(store, [
          { set: jobs, member: 'job-3' },
          { set: bytes, member: 'job-3#0' },
          { set: bytes, member: 'not-there' },
        ]);
        assertEqual(await members(store, jobs), [], 'first set after removal');
        assertEqual(await members(store, bytes), ['held'], 'second set after removal');
        assertEqual(await addToSets(store, []), -1, 'an empty batch');
      });
    });

    it(`racing batches of ${context.concurrency} callers never exceed maxSize in any set`, async () => {
      await withStore(async (store) => {
        const jobs = nextKey('sets-race-jobs');
        const bytes = nextKey('sets-race-bytes');
        const max = Math.max(1, Math.floor(context.concurrency / 2));
        const results = await Promise.all(
          Array.from({ length: context.concurrency }, (_, i) =>
            addToSets(store, [
              { set: jobs, member: `m${i}`, ttlMs: LONG_TTL_MS, maxSize: max },
              { set: bytes, member: `m${i}#0`, ttlMs: LONG_TTL_MS, maxSize: max },
            ]),
          ),
        );
        const winners = results.flatMap((result, i) => (result === -1 ? [`m${i}`] : []));
        assertEqual(winners.length, max, 'batches that succeeded');
        assertEqual((await members(store, jobs)).sort(), winners.sort(), 'first set');
        assertEqual(
          (await members(store, bytes)).sort(),
          winners.map((member) => `${member}#0`).sort(),
          'second set',
        );
      });
    });
  });
}
