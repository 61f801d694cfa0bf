import { jobStoreConformance } from '@svc/gateway-kit/testing';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { PostgresJobStore, type PostgresJobStoreOptions } from '../src/index.ts';
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

// A fresh schema per store, so every store starts empty in the shared server.
const fresh = async (options: PostgresJobStoreOptions = {}): Promise<PostgresJobStore> =>
  new PostgresJobStore({
    connectionString: postgres.url,
    schema: await schemas.fresh(),
    poolSize: 4,
    // The deadline is the fault tests' subject; here a loaded machine must not fail a case.
    commandTimeoutMs: 10_000,
    ...options,
  });

jobStoreConformance({
  name: 'PostgresJobStore',
  createStore: () => fresh(),
  test: { describe, it },
  fc,
  numRuns: 40,
  deliveryTimeoutMs: 2_000,
  timeoutMs: 60_000,
  // Real sleeps: finished jobs expire on the server's clock. The cases read a job at half
  // retention and expect it still there: 1 s leaves half a second of margin for a loaded machine.
  retention: {
    retentionMs: 1_000,
    advanceTime: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    createStore: () => fresh({ retentionMs: 1_000 }),
  },
  bounds: { maxJobs: 5, createStore: () => fresh({ maxJobs: 5 }) },
});
