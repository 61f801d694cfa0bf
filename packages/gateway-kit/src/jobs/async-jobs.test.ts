import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncGateway, OTHER_TOKEN, probe, TOKEN } from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import { defineAction } from '../actions/define-action.ts';
import {
  AcceptedResponseSchema,
  CancelResponseSchema,
  ErrorEnvelopeSchema,
  JobSchema,
} from '../contract/index.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import type { StoredJob } from '../store/job-store.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const BASE = 'https://gateway.acme.example';
let gateway: Gateway;
let client: ReturnType<typeof createTestClient>;

beforeEach(() => {
  probe.runs = 0;
  probe.aborted = 0;
  probe.release = undefined;
  gateway = asyncGateway();
  client = createTestClient(gateway, { token: TOKEN, baseUrl: BASE });
});
afterEach(() => gateway.close());

async function accept(input: Record<string, unknown>, overrides = {}) {
  const response = await client.invoke(invokeBody('generate-report', input, overrides));
  expect(response.status).toBe(200);
  expect(v.is(AcceptedResponseSchema, response.body)).toBe(true);
  return (response.body as v.InferOutput<typeof AcceptedResponseSchema>).job;
}

async function jobOf(jobId: string) {
  const response = await client.job(jobId);
  expect(response.status).toBe(200);
  expect(v.is(JobSchema, response.body)).toBe(true);
  return response.body as v.InferOutput<typeof JobSchema>;
}

describe('async jobs', () => {
  it('answers accepted with absolute status and cancel URLs, the job already readable', async () => {
    const job = await accept({ topic: 'q3', mode: 'wait' });
    expect(job.status).toBe('queued');
    expect(job.statusUrl).toBe(`${BASE}/v1/jobs/${job.jobId}`);
    expect(job.cancelUrl).toBe(`${BASE}/v1/jobs/${job.jobId}/cancel`);
    const stored = await jobOf(job.jobId);
    expect(['queued', 'running']).toContain(stored.status);
    expect(stored).toMatchObject({ actionId: 'generate-report', actionName: 'generate-report' });
    probe.release?.();
  });

  it('runs the action in the background: progress, then completed with the result', async () => {
    const job = await accept({ topic: 'q3', mode: 'wait' });
    await expect.poll(async () => (await jobOf(job.jobId)).outputText).toBe('Working on q3…');
    expect((await jobOf(job.jobId)).status).toBe('running');
    probe.release?.();
    await gateway.idle();
    const done = await jobOf(job.jobId);
    expect(done).toMatchObject({
      status: 'completed',
      outputText: 'Report on q3 is ready.',
      data: { topic: 'q3', pages: 3 },
      dataSchemaVersion: '1',
    });
    expect(Date.parse(done.updatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
  });

  it('cancels a running job: 200 { job } cancelled, the action signal aborts, a late completion cannot overwrite it', async () => {
    const job = await accept({ topic: 'q3', mode: 'ignore-abort' });
    await expect.poll(async () => (await jobOf(job.jobId)).status).toBe('running');
    const cancelled = await client.cancel(job.jobId);
    expect(cancelled.status).toBe(200);
    expect(v.is(CancelResponseSchema, cancelled.body)).toBe(true);
    expect((cancelled.body as { job: { status: string } }).job.status).toBe('cancelled');
    expect(probe.aborted).toBe(1);
    probe.release?.(); // the action ignores the abort and "completes" anyway
    await gateway.idle();
    expect((await jobOf(job.jobId)).status).toBe('cancelled');
  });

  it('answers 409 job_not_cancellable for a finished job, 404 for an unknown one', async () => {
    const job = await accept({ topic: 'q3' });
    await gateway.idle();
    const late = await client.cancel(job.jobId);
    expect(late.status).toBe(409);
    expect(v.is(ErrorEnvelopeSchema, late.body)).toBe(true);
    expect(late.body).toMatchObject({
      error: { code: 'job_not_cancellable', details: { status: 'completed' } },
    });
    const missing = await client.cancel('job_does_not_exist');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'job_not_found' } });
  });

  it('shows a job only to the principal that created it', async () => {
    const job = await accept({ topic: 'q3', mode: 'wait' });
    const stranger = createTestClient(gateway, { token: OTHER_TOKEN, baseUrl: BASE });
    expect((await stranger.job(job.jobId)).status).toBe(404);
    expect((await stranger.cancel(job.jobId)).status).toBe(404);
    expect((await jobOf(job.jobId)).status).not.toBe('cancelled');
    probe.release?.();
  });

  it('fails a throwing job with internal_error, retryable as the action is idempotent, without leaking the message', async () => {
    const job = await accept({ topic: 'q3', mode: 'throw' });
    await gateway.idle();
    const failed = await jobOf(job.jobId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'internal_error', retryable: true });
    expect(JSON.stringify(failed)).not.toContain('/var/secret');
  });

  it('fails a job whose action refuses, with the refusal as the job error', async () => {
    const job = await accept({ topic: 'q3', mode: 'reject' });
    await gateway.idle();
    expect(await jobOf(job.jobId)).toMatchObject({
      status: 'failed',
      error: { code: 'topic_banned', message: 'Not this topic.', retryable: false },
    });
  });

  it('fails a job that overruns its time budget with a retryable deadline_exceeded', async () => {
    const job = await accept(
      { topic: 'q3', mode: 'wait' },
      { deadlineAt: new Date(Date.now() + 100).toISOString() },
    );
    await gateway.idle();
    expect(await jobOf(job.jobId)).toMatchObject({
      status: 'failed',
      error: { code: 'deadline_exceeded', retryable: true },
    });
    expect(probe.aborted).toBe(1);
  });

  it('answers 503 unavailable, retryable, when the job store is full of active jobs', async () => {
    const full = asyncGateway({ jobStore: new MemoryJobStore({ maxJobs: 1 }) });
    const fullClient = createTestClient(full, { token: TOKEN, baseUrl: BASE });
    expect(
      (await fullClient.invoke(invokeBody('generate-report', { topic: 'a', mode: 'wait' }))).status,
    ).toBe(200);
    const refused = await fullClient.invoke(
      invokeBody('generate-report', { topic: 'b', mode: 'wait' }),
    );
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { code: 'unavailable', retryable: true } });
    probe.release?.();
    await full.close();
  });

  it('hands background work, callback delivery included, to the Workers-style waitUntil of the request', async () => {
    const receiver = await startCallbackReceiver();
    try {
      const handed: Promise<unknown>[] = [];
      const request = new Request(`${BASE}/v1/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(
          invokeBody(
            'generate-report',
            { topic: 'q3' },
            { callbacks: { jobResultUrl: `${receiver.url}/done` } },
          ),
        ),
      });
      const response = await gateway.fetch(request, {}, { waitUntil: (work) => handed.push(work) });
      expect(response.status).toBe(200);
      expect(handed).toHaveLength(1);
      await handed[0];
      // Settling the handed promise means the job finished and its callback was delivered.
      const { job } = (await response.json()) as { job: { jobId: string } };
      expect((await jobOf(job.jobId)).status).toBe('completed');
      expect(receiver.received.map((r) => r.path)).toEqual(['/done']);
    } finally {
      await receiver.close();
    }
  });
});

describe('job-result callbacks', () => {
  it('POSTs { job } with the caller credential and Standard Webhooks headers when a job finishes', async () => {
    const receiver = await startCallbackReceiver();
    try {
      const job = await accept(
        { topic: 'q3' },
        {
          callbacks: {
            jobResultUrl: `${receiver.url}/jobs`,
            authorization: 'Bearer callback-credential',
          },
        },
      );
      await gateway.idle();
      expect(receiver.received).toHaveLength(1);
      const [callback] = receiver.received;
      expect(callback!.path).toBe('/jobs');
      expect(callback!.headers.authorization).toBe('Bearer callback-credential');
      expect(callback!.headers['webhook-id']).toBe(`job_${job.jobId}_completed`);
      expect(callback!.headers['webhook-signature']).toMatch(/^v1,/);
      const body = JSON.parse(callback!.body) as { job: unknown };
      expect(v.is(JobSchema, body.job)).toBe(true);
      expect(body.job).toMatchObject({ jobId: job.jobId, status: 'completed' });
    } finally {
      await receiver.close();
    }
  });

  it('sends the cancelled job when a job is cancelled', async () => {
    const receiver = await startCallbackReceiver();
    try {
      const job = await accept(
        { topic: 'q3', mode: 'wait' },
        { callbacks: { jobResultUrl: `${receiver.url}/jobs` } },
      );
      await client.cancel(job.jobId);
      await gateway.idle();
      expect(receiver.received.map((r) => JSON.parse(r.body).job.status)).toEqual(['cancelled']);
    } finally {
      await receiver.close();
    }
  });

  it('refuses callback URLs the SSRF guard rejects with 422 at invoke time', async () => {
    const strict = asyncGateway({ callbacks: {} });
    const strictClient = createTestClient(strict, { token: TOKEN, baseUrl: BASE });
    for (const jobResultUrl of [
      'http://127.0.0.1:9/x',
      'https://10.0.0.1/x',
      'https://169.254.169.254/latest',
    ]) {
      const response = await strictClient.invoke(
        invokeBody('generate-report', { topic: 'q' }, { callbacks: { jobResultUrl } }),
      );
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        error: {
          code: 'invalid_request',
          details: { issues: [{ path: 'callbacks.jobResultUrl' }] },
        },
      });
    }
    // A sync action never calls back, so its callback URLs are not judged.
    const sync = await strictClient.invoke(
      invokeBody('count-calls', { n: 1 }, { callbacks: { jobResultUrl: 'https://10.0.0.1/x' } }),
    );
    expect(sync.status).toBe(200);
    await strict.close();
  });
});

describe('manifest capabilities', () => {
  it('advertise jobs, callbacks and approvals only when the gateway honours them', () => {
    expect(gateway.manifest.gateway.capabilities).toEqual({
      asyncJobs: true,
      jobCallbacks: true,
      approvals: true,
    });
    expect(gateway.manifest.callbacks).toEqual({ jobResults: true, approvals: true });
    const noCallbacks = asyncGateway({ callbacks: false });
    expect(noCallbacks.manifest.gateway.capabilities).toEqual({
      asyncJobs: true,
      jobCallbacks: false,
      approvals: true,
    });
    expect(noCallbacks.manifest.callbacks).toEqual({ jobResults: false, approvals: false });
    expect(gateway.manifest.actions.find((a) => a.id === 'generate-report')?.executionMode).toBe(
      'async',
    );
  });
});

describe('cancellation watch', () => {
  // A store that counts the jobs it is asked to watch for a cancel.
  class WatchedStore extends MemoryJobStore {
    watched = 0;
    override onCancel(jobId: string, listener: () => void): () => void {
      this.watched += 1;
      return super.onCancel(jobId, listener);
    }
  }
  const quiet = (release: Promise<void>, readSignal: boolean) =>
    defineAction({
      id: 'quiet',
      executionMode: 'async',
      sideEffectLevel: 'read',
      input: v.strictObject({}),
      run: async (_input, context) => {
        await release;
        if (!readSignal) return { outputText: 'done' };
        const { signal } = context;
        // A signal first read after the cancel is aborted all the same (the store tells late
        // listeners).
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve());
        });
        return { outputText: `aborted: ${signal.aborted}` };
      },
    });

  it('asks the store to watch a job only once its action reads its signal, and still delivers an earlier cancel', async () => {
    for (const readSignal of [false, true]) {
      const store = new WatchedStore();
      let release = (): void => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const watching = asyncGateway({ jobStore: store, actions: [quiet(released, readSignal)] });
      try {
        const watchingClient = createTestClient(watching, { token: TOKEN, baseUrl: BASE });
        const accepted = await watchingClient.invoke(invokeBody('quiet', {}));
        const { jobId } = (accepted.body as { job: { jobId: string } }).job;
        await expect.poll(async () => (await store.get(jobId))?.status).toBe('running');
        if (readSignal) expect((await watchingClient.cancel(jobId)).status).toBe(200);
        release();
        await watching.idle();
        const job = (await watchingClient.job(jobId)).body as { status: string };
        expect(job.status).toBe(readSignal ? 'cancelled' : 'completed');
        expect(store.watched).toBe(readSignal ? 1 : 0);
      } finally {
        await watching.close();
      }
    }
  });
});

describe('the writes of a job', () => {
  /** A memory store that records the status of every create and update. */
  class RecordingStore extends MemoryJobStore {
    readonly writes: string[] = [];
    override async create(job: Parameters<MemoryJobStore['create']>[0]) {
      this.writes.push(`create ${job.status}`);
      return super.create(job);
    }
    override async update(...args: Parameters<MemoryJobStore['update']>) {
      this.writes.push(`update ${args[2].status ?? 'progress'}`);
      return super.update(...args);
    }
  }

  it('creates a job it starts at once as running (no queued → running write), still answering queued', async () => {
    const store = new RecordingStore();
    const recording = asyncGateway({ jobStore: store });
    try {
      const recordingClient = createTestClient(recording, { token: TOKEN, baseUrl: BASE });
      const response = await recordingClient.invoke(invokeBody('generate-report', { topic: 'q3' }));
      expect((response.body as { job: { status: string } }).job.status).toBe('queued');
      await recording.idle();
      // (progress writes of the action in between)
      expect(store.writes[0]).toBe('create running');
      expect(store.writes).not.toContain('update running');
      expect(store.writes.at(-1)).toBe('update completed');
    } finally {
      await recording.close();
    }
  });

  it('keeps jobs queued until they start with a store that restarts orphaned jobs (onOrphaned)', async () => {
    // Such a store tells a job that never ran (started again) from one that may have.
    class OrphanStore extends RecordingStore {
      onOrphaned(): () => void {
        return () => {};
      }
    }
    const store = new OrphanStore();
    const orphans = asyncGateway({ jobStore: store });
    try {
      const orphansClient = createTestClient(orphans, { token: TOKEN, baseUrl: BASE });
      await orphansClient.invoke(invokeBody('generate-report', { topic: 'q3' }));
      await orphans.idle();
      expect(store.writes.slice(0, 2)).toEqual(['create queued', 'update running']);
      expect(store.writes.at(-1)).toBe('update completed');
    } finally {
      await orphans.close();
    }
  });
});

describe('jobs failed by the store itself', () => {
  it('sends the job-result callback for a job the store reports as worker_lost', async () => {
    // A store that, like a distributed one, can fail a job whose worker died.
    class LosingStore extends MemoryJobStore {
      readonly #listeners = new Set<(job: StoredJob) => void>();
      onWorkerLost(listener: (job: StoredJob) => void): () => void {
        this.#listeners.add(listener);
        return () => this.#listeners.delete(listener);
      }
      async loseWorker(jobId: string): Promise<void> {
        const job = (await this.get(jobId))!;
        const written = await this.update(jobId, job.version, {
          status: 'failed',
          error: { code: 'worker_lost', message: 'The worker stopped.', retryable: true },
        });
        if (written.ok) for (const listener of this.#listeners) listener(written.job);
      }
    }
    const store = new LosingStore();
    const losing = asyncGateway({ jobStore: store });
    const receiver = await startCallbackReceiver();
    try {
      const losingClient = createTestClient(losing, { token: TOKEN, baseUrl: BASE });
      const accepted = await losingClient.invoke(
        invokeBody(
          'generate-report',
          { topic: 'q3', mode: 'hang' },
          { callbacks: { jobResultUrl: `${receiver.url}/lost` } },
        ),
      );
      const { jobId } = (accepted.body as { job: { jobId: string } }).job;
      await expect.poll(async () => (await store.get(jobId))?.status).toBe('running');
      await store.loseWorker(jobId);
      await expect.poll(() => receiver.received.length).toBe(1);
      expect(JSON.parse(receiver.received[0]!.body).job).toMatchObject({
        jobId,
        status: 'failed',
        error: { code: 'worker_lost', retryable: true },
      });
    } finally {
      probe.release?.();
      await losing.idle();
      await losing.close();
      await receiver.close();
    }
  });

  it('announces each finished job to the store once, when its callback is handed over (not after delivery and its retries)', async () => {
    const receiver = await startCallbackReceiver();
    const events: string[] = [];
    class AnnouncedStore extends MemoryJobStore {
      async announced(jobId: string): Promise<void> {
        // In process, the callback is handed over when its delivery starts: before it arrives.
        const sent = receiver.received.some((request) => request.body.includes(jobId));
        events.push(`announced ${jobId} ${sent ? 'after' : 'before'} its callback arrived`);
      }
    }
    const store = new AnnouncedStore();
    const announcing = asyncGateway({ jobStore: store });
    try {
      const announcingClient = createTestClient(announcing, { token: TOKEN, baseUrl: BASE });
      const start = async (mode?: string) => {
        const accepted = await announcingClient.invoke(
          invokeBody(
            'generate-report',
            { topic: 'q3', ...(mode ? { mode } : {}) },
            { callbacks: { jobResultUrl: `${receiver.url}/jobs` } },
          ),
        );
        return (accepted.body as { job: { jobId: string } }).job.jobId;
      };
      const completed = await start();
      const cancelled = await start('wait');
      await expect.poll(async () => (await store.get(cancelled))?.status).toBe('running');
      await announcingClient.cancel(cancelled);
      await announcing.idle();
      expect(events.sort()).toEqual(
        [completed, cancelled]
          .map((jobId) => `announced ${jobId} before its callback arrived`)
          .sort(),
      );
      for (const jobId of [completed, cancelled])
        expect(receiver.received.some((request) => request.body.includes(jobId))).toBe(true);
    } finally {
      await announcing.close();
      await receiver.close();
    }
  });
});
