import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway, type Gateway } from '../gateway/create-gateway.ts';
import type { JobStore } from '../store/job-store.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const TOKEN = 'outage-test-token';

/** A store adapter's outage error, as `@svc/gateway-kit-redis` throws it. */
class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** A memory job store whose writes fail while `down` (reads too), like Redis during an outage. */
function flakyStore() {
  const inner = new MemoryJobStore();
  const state = { down: false, refusedWrites: 0 };
  const guard = <T>(call: () => Promise<T>): Promise<T> => {
    if (!state.down) return call();
    state.refusedWrites += 1;
    return Promise.reject(new StoreUnavailableError('Redis is down'));
  };
  const store: JobStore = {
    create: (job) => inner.create(job),
    get: (jobId) => inner.get(jobId),
    update: (jobId, version, update) => guard(() => inner.update(jobId, version, update)),
    requestCancel: (jobId) => inner.requestCancel(jobId),
    onCancel: (jobId, listener) => inner.onCancel(jobId, listener),
    close: () => inner.close(),
  };
  return { store, state };
}

let release: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  release = resolve;
});
const report = defineAction({
  id: 'report',
  executionMode: 'async',
  input: v.strictObject({ n: v.number() }),
  run: async ({ n }, { job }) => {
    await gate;
    // Progress during the outage is reported, not fatal.
    await job?.progress({ outputText: `writing ${n}` });
    return { outputText: `report ${n}` };
  },
});

let gateway: Gateway;
afterEach(() => gateway.close());

describe('a job store outage while jobs finish', () => {
  it('20 jobs that finish during the outage all reach completed afterwards, each with one callback', async () => {
    const { store, state } = flakyStore();
    const callbacks: string[] = [];
    gateway = createGateway({
      gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
      actions: [report],
      auth: { tokens: [TOKEN] },
      jobStore: store,
      logger: { error: () => {}, warn: () => {} },
      callbacks: {
        fetch: async (_url, init) => {
          callbacks.push(JSON.parse(String(init?.body)).job.jobId);
          return new Response(null, { status: 204 });
        },
      },
    });
    const client = createTestClient(gateway, { token: TOKEN });
    const jobIds: string[] = [];
    for (let n = 0; n < 20; n++) {
      const accepted = await client.invoke(
        invokeBody('report', { n }, { callbacks: { jobResultUrl: 'https://hooks.example.com/r' } }),
      );
      jobIds.push((accepted.body as { job: { jobId: string } }).job.jobId);
    }
    // Every job is running; the store goes down; the actions finish.
    await expect.poll(async () => (await store.get(jobIds[19]!))?.status).toBe('running');
    state.down = true;
    release();
    await expect.poll(() => state.refusedWrites, { timeout: 5_000 }).toBeGreaterThan(40);
    for (const jobId of jobIds) expect((await store.get(jobId))?.status).toBe('running');
    expect(callbacks).toEqual([]);

    state.down = false;
    await expect
      .poll(
        async () => (await Promise.all(jobIds.map((id) => store.get(id)))).map((j) => j?.status),
        {
          timeout: 10_000,
        },
      )
      .toEqual(jobIds.map(() => 'completed'));
    await gateway.idle();
    expect(callbacks.sort()).toEqual([...jobIds].sort());
  });
});
