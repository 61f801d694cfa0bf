import { randomUUID } from 'node:crypto';
import type { CallbackOutbox } from '@svc/gateway-kit/store';
import { callbackOutboxConformance } from '@svc/gateway-kit/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisJobStore } from '../src/index.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

const stores = new Map<CallbackOutbox, RedisJobStore>();

callbackOutboxConformance({
  name: 'RedisCallbackOutbox',
  createOutbox: ({ leaseMs, maxEntriesPerPrincipal, retentionMs }) => {
    const store = new RedisJobStore({
      url: redis.url,
      prefix: `outbox:${randomUUID()}:`,
      leaseMs,
      retentionMs,
      maxPendingCallbacksPerPrincipal: maxEntriesPerPrincipal,
      sweepIntervalMs: 0,
    });
    stores.set(store.callbackOutbox, store);
    return store.callbackOutbox;
  },
  cleanup: async (outbox) => {
    await stores.get(outbox)?.close();
    stores.delete(outbox);
  },
  test: { describe, it },
  timeoutMs: 30_000,
});
