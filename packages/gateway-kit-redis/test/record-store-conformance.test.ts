import { randomUUID } from 'node:crypto';
// Not exported from `@svc/gateway-kit/testing` yet (requested); the suite is read from source.
import { recordStoreConformance } from '@svc/gateway-kit/testing';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisRecordStore } from '../src/index.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

recordStoreConformance({
  name: 'RedisRecordStore',
  // Each store gets its own prefix, so `list` only sees what that store wrote.
  createStore: () => new RedisRecordStore({ url: redis.url, prefix: `records:${randomUUID()}:` }),
  test: { describe, it },
  fc,
  numRuns: 40,
  timeoutMs: 30_000,
  // Real sleeps: Redis expires keys on its own clock (millisecond precision with PX).
  // Long enough that a loaded machine's scheduling never outlasts the "still alive" checks.
  ttl: { ttlMs: 1_000 },
});
