// The benchmarked gateway, shared by (c) its own node:http adapter, (d) the Fastify mount and the
// in-process measurements of validation.mjs, so each measures the same gateway.
import { createGateway, defineAction, MemoryRecordStore } from '../../dist/index.js';
import { LookupInput, runLookup, TOKEN } from '../fixtures.mjs';

/** A new benchmark gateway; `url` is its public URL (as `gateway.url`). */
export function createBenchGateway(url = 'http://127.0.0.1') {
  return createGateway({
    gateway: { id: 'bench', name: 'Benchmark gateway', url },
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
}
