import { randomUUID } from 'node:crypto';
import { jobStoreConformance } from '@svc/gateway-kit/testing';
import * as fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisJobStore, type RedisJobStoreOptions } from '../src/index.ts';
import { type RedisClock, redisClock } from './redis-clock.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
let clock: RedisClock;
beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  await raw.connect();
  clock = redisClock(raw);
});
afterAll(async () => {
  raw.destroy();
  await redis.stop();
});

// A fresh key prefix per store, so every store starts empty in the shared server.
const fresh = (options: RedisJobStoreOptions = {}): RedisJobStore =>
  new RedisJobStore({ url: redis.url, prefix: `conformance:${randomUUID()}:`, ...options });

jobStoreConformance({
  name: 'RedisJobStore',
  createStore: () => fresh(),
  test: { describe, it },
  fc,
  numRuns: 40,
  deliveryTimeoutMs: 2_000,
  timeoutMs: 30_000,
  retention: {
    retentionMs: 300,
    // The store's clock is Redis' (its retention is a PX): wait until Redis' clock moved `ms`.
    advanceTime: (ms) => clock.elapse(ms),
    createStore: () => fresh({ retentionMs: 300 }),
  },
  // maxJobs is a store-wide bound, split into per-bucket shares (docs/redis.md): its exact cases
  // run on a store of one bucket. Per-principal bounds are exact with any number of buckets.
  bounds: { maxJobs: 5, createStore: () => fresh({ maxJobs: 5, buckets: 1 }) },
  // One bucket (the default on one node): jobs' creates and ends take and give their budgets.
  claimsJobQuotas: true,
});
