import { recordStoreConformance } from '@svc/gateway-kit/testing';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { PostgresRecordStore } from '../src/index.ts';
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

// The suite includes the time-ordered set cases (quotas, approvals index).
recordStoreConformance({
  name: 'PostgresRecordStore',
  createStore: async () =>
    new PostgresRecordStore({
      connectionString: postgres.url,
      schema: await schemas.fresh(),
      poolSize: 4,
      // The deadline is the fault tests' subject; here a loaded machine must not fail a case.
      commandTimeoutMs: 10_000,
    }),
  test: { describe, it },
  fc,
  numRuns: 40,
  timeoutMs: 60_000,
  // Real sleeps: records expire on the server's clock (microsecond precision).
  ttl: { ttlMs: 1_000 },
});
