import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway, type Gateway } from '../gateway/create-gateway.ts';
import type { JobStore, NewJob, StoredJob } from '../store/job-store.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient } from '../testing/index.ts';

// JobStore.onOrphaned: a durable store restarted in place (a Durable Object) reports the jobs its
// previous instance left unfinished, and the gateway runs them again or fails them.
const TOKEN = 'orphan-test-token';
let runs: string[] = [];

const idempotentReport = defineAction({
  id: 'report',
  executionMode: 'async',
  idempotent: true,
  input: v.strictObject({ topic: v.string() }),
  run: ({ topic }) => {
    runs.push(`report:${topic}`);
    return { outputText: `Report on ${topic}.` };
  },
});
const payout = defineAction({
  id: 'payout',
  executionMode: 'async',
  idempotent: false,
  input: v.strictObject({ cents: v.number() }),
  run: ({ cents }) => {
    runs.push(`payout:${cents}`);
    return { outputText: `Paid ${cents}.` };
  },
});

/** A memory store that can report orphans, as a restarted durable store does. */
function restartedStore() {
  const inner = new MemoryJobStore();
  const listeners = new Set<(job: StoredJob) => void>();
  const store: JobStore = {
    create: (job) => inner.create(job),
    get: (jobId) => inner.get(jobId),
    update: (jobId, version, update) => inner.update(jobId, version, update),
    requestCancel: (jobId) => inner.requestCancel(jobId),
    onCancel: (jobId, listener) => inner.onCancel(jobId, listener),
    onOrphaned: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => inner.close(),
  };
  return {
    store,
    /** Stores a job as the previous instance left it (queued, or running). */
    left: async (
      job: Omit<NewJob, 'status' | 'ownerId' | 'invocationId' | 'createdAt'>,
      status: 'queued' | 'running',
    ) => {
      const { job: created } = await inner.create({
        ...job,
        status: 'queued',
        ownerId: 'default',
        invocationId: `inv_${job.jobId}`,
        createdAt: new Date().toISOString(),
      });
      if (status === 'queued') return created;
      const running = await inner.update(created.jobId, created.version, { status: 'running' });
      if (!running.ok) throw new Error('could not start');
      return running.job;
    },
    report: (job: StoredJob) => {
      for (const listener of listeners) listener(job);
    },
    listeners,
  };
}

const payload = (input: Record<string, unknown>) => ({
  invocation: { invocationId: 'inv', meeting: { meetingId: 'm' } },
  callbacks: {},
  input,
});

let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  runs = [];
});

describe('jobs an earlier instance left (JobStore.onOrphaned)', () => {
  async function setUp() {
    const restarted = restartedStore();
    gateway = createGateway({
      gateway: { id: 'g', name: 'G' },
      actions: [idempotentReport, payout],
      auth: { tokens: [TOKEN] },
      jobStore: restarted.store,
    });
    const client = createTestClient(gateway, { token: TOKEN });
    const status = async (jobId: string) =>
      (await client.job(jobId)).body as { status: string; error?: { code: string } };
    return { restarted, status };
  }

  it('subscribes while the gateway is open and unsubscribes on close', async () => {
    const { restarted } = await setUp();
    expect(restarted.listeners.size).toBe(1);
    await gateway?.close();
    expect(restarted.listeners.size).toBe(0);
  });

  it('starts a queued job: its action never ran', async () => {
    const { restarted, status } = await setUp();
    const job = await restarted.left(
      { jobId: 'job_q', actionId: 'payout', actionName: 'payout', payload: payload({ cents: 5 }) },
      'queued',
    );
    restarted.report(job);
    await gateway?.idle();
    expect(await status('job_q')).toMatchObject({ status: 'completed', outputText: 'Paid 5.' });
    expect(runs).toEqual(['payout:5']);
    // A job stored by an earlier version kept the caller's input in its payload: gone once finished.
    expect((await restarted.store.get('job_q'))?.payload).toEqual({ callbacks: {} });
  });

  it('runs a running job of an idempotent action again', async () => {
    const { restarted, status } = await setUp();
    const job = await restarted.left(
      {
        jobId: 'job_r',
        actionId: 'report',
        actionName: 'report',
        payload: payload({ topic: 'q3' }),
      },
      'running',
    );
    restarted.report(job);
    await gateway?.idle();
    expect(await status('job_r')).toMatchObject({
      status: 'completed',
      outputText: 'Report on q3.',
    });
    expect(runs).toEqual(['report:q3']);
  });

  it('fails a running job of a non-idempotent action with worker_lost, never running it twice', async () => {
    const { restarted, status } = await setUp();
    const job = await restarted.left(
      { jobId: 'job_p', actionId: 'payout', actionName: 'payout', payload: payload({ cents: 9 }) },
      'running',
    );
    restarted.report(job);
    await gateway?.idle();
    expect(await status('job_p')).toMatchObject({
      status: 'failed',
      error: { code: 'worker_lost', retryable: true },
    });
    expect(runs).toEqual([]);
  });

  it('fails a running job whose action the gateway no longer has', async () => {
    const { restarted, status } = await setUp();
    const job = await restarted.left(
      { jobId: 'job_x', actionId: 'removed', actionName: 'removed', payload: payload({}) },
      'running',
    );
    restarted.report(job);
    await gateway?.idle();
    expect(await status('job_x')).toMatchObject({
      status: 'failed',
      error: { code: 'worker_lost' },
    });
  });
});
