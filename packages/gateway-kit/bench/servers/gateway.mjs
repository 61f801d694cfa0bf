// (c) Our gateway, from the package's dist, served by its own node:http adapter.
import { createGateway, defineAction, MemoryRecordStore } from '../../dist/index.js';
import { serve } from '../../dist/node.js';
import { LookupInput, runLookup, TOKEN } from '../fixtures.mjs';
import { reportPort } from './announce.mjs';

export const gateway = createGateway({
  gateway: { id: 'bench', name: 'Benchmark gateway', url: 'http://127.0.0.1' },
  actions: [defineAction({ id: 'lookup-account', input: LookupInput, run: runLookup })],
  auth: { tokens: [TOKEN] },
  version: '2025-01-01',
  // validation.mjs sends a fresh idempotency key per call, far beyond the per-principal default
  // (1 000 live keys): room for every call of the measurement, with records kept 1 s so that
  // the store stays the size a real principal's keys give it.
  quotas: { idempotencyKeys: 10_000_000 },
  idempotencyTtlMs: 1_000,
  recordStore: new MemoryRecordStore({ maxRecords: 10_000_000, maxBytes: 2 ** 31 }),
});

// Imported by validation.mjs for the in-process path; only a child of run.mjs listens.
if (process.send) {
  const { server } = await serve(gateway, { port: 0 });
  reportPort(server.address().port);
}
