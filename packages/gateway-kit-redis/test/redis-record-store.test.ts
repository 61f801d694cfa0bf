import { randomUUID } from 'node:crypto';
import { RecordStoreFullError } from '@svc/gateway-kit/store';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RedisRecordStore, type RedisRecordStoreOptions } from '../src/index.ts';
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
    ...options,
  });
  stores.push(created);
  return created;
}

it('a create writes the record and its expiry index, and nothing that lists records', async () => {
  const prefix = `r:${randomUUID()}:`;
  const records = store({ prefix });
  await records.create('approval:1', { n: 1 }, 60_000);
  await records.create('idem:a', { n: 2 }, 60_000);
  const keys: string[] = [];
  for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 }))
    keys.push(...batch);
  expect(keys.sort()).toEqual([
    `${prefix}rec-expiry`,
    `${prefix}rec:approval:1`,
    `${prefix}rec:idem:a`,
  ]);
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

it('rejects create with RecordStoreFullError at maxRecords live records, and accepts again once they expire', async () => {
  const records = store({ maxRecords: 3 });
  for (const key of ['a', 'b', 'c']) await records.create(key, key, 200);
  await expect(records.create('d', 'd', 60_000)).rejects.toBeInstanceOf(RecordStoreFullError);
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect((await records.create('d', 'd', 60_000)).created).toBe(true);
});

it('expired records leave no index entries behind (memory stays bounded)', async () => {
  const prefix = `r:${randomUUID()}:`;
  const records = store({ prefix });
  for (let i = 0; i < 50; i++) await records.create(`idem:${i}`, i, 100);
  await new Promise((resolve) => setTimeout(resolve, 150));
  await records.create('idem:new', 'x', 60_000);
  expect(await raw.zCard(`${prefix}rec-expiry`)).toBe(1);
});
