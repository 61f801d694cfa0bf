import { randomUUID } from 'node:crypto';
import { RecordStoreFullError } from '@svc/gateway-kit/store';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { RedisRecordStore, type RedisRecordStoreOptions } from '../src/index.ts';
import { DEFAULT_BUCKETS, KeyLayout } from '../src/key-layout.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
const stores: RedisRecordStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  raw.destroy();
  await redis.stop();
});

function store(options: RedisRecordStoreOptions = {}): RedisRecordStore {
  const created = new RedisRecordStore({
    url: redis.url,
    prefix: `r:${randomUUID()}:`,
    buckets: DEFAULT_BUCKETS,
    ...options,
  });
  stores.push(created);
  return created;
}

/**
 * Resolves once none of `keys` reads as present: their PX ran out on Redis' clock (which a test
 * cannot fake, so it waits for the state instead of sleeping past the TTL). Rejects after 5 s.
 */
async function expired(records: RedisRecordStore, keys: readonly string[]): Promise<void> {
  await vi.waitFor(
    async () => {
      const present = await Promise.all(
        keys.map(async (key) => (await records.get(key)) !== undefined),
      );
      const left = present.filter(Boolean).length;
      if (left > 0) throw new Error(`${left} of ${keys.length} records have not expired`);
    },
    { timeout: 5_000, interval: 10 },
  );
}

it('a create writes the record and its expiry index, and nothing that lists records', async () => {
  const prefix = `r:${randomUUID()}:`;
  const records = store({ prefix });
  await records.create('approval:1', { n: 1 }, 60_000);
  await records.create('idem:a', { n: 2 }, 60_000);
  const keys: string[] = [];
  for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 }))
    keys.push(...batch);
  // Each record and its expiry-index entry live in the bucket of the record's key.
  const layout = new KeyLayout(prefix, 64);
  const expected = new Set(
    ['approval:1', 'idem:a'].flatMap((key) => [
      `${layout.baseOf(key)}rec-expiry`,
      `${layout.baseOf(key)}rec:${key}`,
    ]),
  );
  expect(keys.sort()).toEqual([...expected].sort());
});

it('instances with the same prefix share records; other prefixes are invisible', async () => {
  const prefix = `r:${randomUUID()}:`;
  const a = store({ prefix });
  const b = store({ prefix });
  const other = store();
  await a.create('idem:x', { state: 'done' }, 60_000);
  expect(await b.get('idem:x')).toEqual({ value: { state: 'done' }, version: 1 });
  expect(await other.get('idem:x')).toBeUndefined();
});

// maxRecords is split into per-bucket shares; one bucket makes the exact store-wide bound testable.
it('rejects create with RecordStoreFullError at maxRecords live records, and accepts again once they expire', async () => {
  const records = store({ maxRecords: 3, buckets: 1 });
  for (const key of ['a', 'b', 'c']) await records.create(key, key, 200);
  await expect(records.create('d', 'd', 60_000)).rejects.toBeInstanceOf(RecordStoreFullError);
  await expired(records, ['a', 'b', 'c']);
  expect((await records.create('d', 'd', 60_000)).created).toBe(true);
});

it('expired records leave no index entries behind (memory stays bounded)', async () => {
  const prefix = `r:${randomUUID()}:`;
  // Each bucket's index is pruned by creates in that bucket: 40 new keys reach all 4 buckets.
  const records = store({ prefix, buckets: 4 });
  const keys = new KeyLayout(prefix, 4);
  for (let i = 0; i < 50; i++) await records.create(`idem:${i}`, i, 100);
  await expired(
    records,
    Array.from({ length: 50 }, (_, i) => `idem:${i}`),
  );
  for (let i = 0; i < 40; i++) await records.create(`idem:new:${i}`, 'x', 60_000);
  expect(new Set(Array.from({ length: 40 }, (_, i) => keys.bucketOf(`idem:new:${i}`))).size).toBe(
    4,
  );
  const entries = await Promise.all(
    [0, 1, 2, 3].map((b) => raw.zCard(`${keys.base(b)}rec-expiry`)),
  );
  expect(entries.reduce((a, b) => a + b, 0)).toBe(40);
});

it('a bounded set is pruned of expired members once its count reaches the bound: they never refuse a member, and never outnumber the bound', async () => {
  const prefix = `r:${randomUUID()}:`;
  const records = store({ prefix });
  const key = `${prefix}set:quota:activeJobs:p1`;
  // Three members that expired long ago (score: their expiry in Redis ms), as a claim whose
  // release never came leaves them.
  await raw.zAdd(
    key,
    [1, 2, 3].map((n) => ({ score: n, value: `gone-${n}` })),
  );
  const add = (member: string) =>
    records.addToSets([{ set: 'quota:activeJobs:p1', member, ttlMs: 60_000, maxSize: 4 }]);
  // Below the bound even counting the expired ones: added, nothing pruned.
  expect(await add('live-1')).toBe(-1);
  expect(await raw.zCard(key)).toBe(4);
  // At the bound: the expired ones go, and the live count admits the next three.
  for (const member of ['live-2', 'live-3', 'live-4']) expect(await add(member)).toBe(-1);
  expect((await raw.zRange(key, 0, -1)).sort()).toEqual(['live-1', 'live-2', 'live-3', 'live-4']);
  // Four live members: the bound refuses a fifth.
  expect(await add('live-5')).toBe(0);
});
