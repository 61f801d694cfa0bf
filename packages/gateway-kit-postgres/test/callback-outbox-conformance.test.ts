import type { CallbackOutbox } from '@svc/gateway-kit/store';
import { callbackOutboxConformance } from '@svc/gateway-kit/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { PostgresJobStore } from '../src/index.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

let postgres: TestPostgres;
let schemas: Schemas;
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterAll(async () => {
  await schemas.close();
  await postgres.stop();
});

const stores = new Map<CallbackOutbox, PostgresJobStore>();

callbackOutboxConformance({
  name: 'PostgresCallbackOutbox',
  createOutbox: async ({ leaseMs, maxEntriesPerPrincipal, retentionMs }) => {
    const store = new PostgresJobStore({
      connectionString: postgres.url,
      schema: await schemas.fresh('cbc'),
      poolSize: 2,
      leaseMs,
      retentionMs,
      maxPendingCallbacksPerPrincipal: maxEntriesPerPrincipal,
      sweepIntervalMs: 0,
      commandTimeoutMs: 10_000,
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
