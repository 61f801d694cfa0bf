import { randomUUID } from 'node:crypto';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { GatewayConfigError, type NewJob } from '@svc/gateway-kit/store';
import { createTestClient, invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { RedisJobStore, RedisRecordStore } from '../src/index.ts';
import { DEFAULT_BUCKETS, KeyLayout } from '../src/key-layout.ts';
import { newJob } from './new-job.ts';
import { useRedis } from './redis-fixture.ts';

// Issue 20 on Redis: every way a job ends drops the caller's input and context from its hash, and
// finished jobs are kept per principal, so one principal's churn never evicts another's.

const fixture = useRedis();
const { closers } = fixture;

const MARK = 'caller-secret-context-marker';

const job = (jobId: string, ownerId: string, status: 'queued' | 'running' = 'queued'): NewJob => ({
  ...newJob(jobId, status, ownerId),
  request: `{"input":{}}\n{"note":"${MARK}"}`,
});

function store(options: ConstructorParameters<typeof RedisJobStore>[0] = {}) {
  const prefix = `t:${randomUUID()}:`;
  const created = new RedisJobStore({
    url: fixture.redis.url,
    prefix,
    sweepIntervalMs: 0,
    buckets: DEFAULT_BUCKETS,
    ...options,
  });
  closers.push(() => created.close());
  return { store: created, prefix };
}

describe("the caller's request in the job hash", () => {
  it('is dropped by completion, failure, cancellation and worker_lost', async () => {
    const { store: jobs, prefix } = store({ leaseMs: 50 });
    const keys = new KeyLayout(prefix, DEFAULT_BUCKETS);
    const hash = (id: string) => fixture.raw.hGetAll(keys.job(id));
    const { job: running } = await jobs.create(job('done', 'a', 'running'));
    expect((await hash('done')).request).toContain(MARK);
    await jobs.update('done', running.version, { status: 'completed' });
    const { job: failing } = await jobs.create(job('failed', 'a', 'running'));
    await jobs.update('failed', failing.version, { status: 'failed' });
    await jobs.create(job('cancelled', 'a'));
    await jobs.requestCancel('cancelled');
    // An instance that died: its lease lapses and another instance's sweep fails the job.
    const dead = new RedisJobStore({
      url: fixture.redis.url,
      prefix,
      leaseMs: 50,
      sweepIntervalMs: 0,
      buckets: DEFAULT_BUCKETS,
    });
    await dead.create(job('lost', 'a', 'running'));
    await dead.close();
    await fixture.raw.del(keys.lease('lost'));
    expect(await jobs.sweepExpiredLeases()).toEqual(['lost']);
    for (const id of ['done', 'failed', 'cancelled', 'lost']) {
      const fields = await hash(id);
      expect(fields.status, id).toMatch(/completed|failed|cancelled/);
      expect(fields.request, id).toBeUndefined();
      expect(JSON.stringify(fields), id).not.toContain(MARK);
    }
  });

  it('a cancelled job through the gateway keeps no context (the finding: its hash still held it)', async () => {
    const prefix = `t:${randomUUID()}:`;
    const jobs = new RedisJobStore({ url: fixture.redis.url, prefix, buckets: DEFAULT_BUCKETS });
    const records = new RedisRecordStore({
      url: fixture.redis.url,
      prefix,
      buckets: DEFAULT_BUCKETS,
    });
    let seen: unknown;
    const gateway = createGateway({
      gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
      actions: [
        defineAction({
          id: 'slow',
          executionMode: 'async',
          input: v.strictObject({}),
          run: async (_input, { invocation, signal }) => {
            seen = invocation.context;
            await new Promise((resolve) => signal.addEventListener('abort', resolve));
            return {};
          },
        }),
      ],
      auth: { tokens: ['t'] },
      jobStore: jobs,
      recordStore: records,
      logger: { error: () => {}, warn: () => {} },
    });
    closers.push(
      () => records.close(),
      () => jobs.close(),
      () => gateway.close(),
    );
    const client = createTestClient(gateway, { token: 't' });
    const context = { note: MARK, list: [{}, { a: [1] }] };
    const accepted = await client.invoke(invokeBody('slow', {}, { context }));
    const { jobId } = (accepted.body as { job: { jobId: string } }).job;
    await expect.poll(() => seen).toEqual(context);
    expect((await client.cancel(jobId)).status).toBe(200);
    const fields = await fixture.raw.hGetAll(new KeyLayout(prefix, DEFAULT_BUCKETS).job(jobId));
    expect(fields.status).toBe('cancelled');
    expect(JSON.stringify(fields)).not.toContain(MARK);
  });
});

describe('retention per principal', () => {
  it("B's finished job survives A's churn of 100 000 short jobs (pipelined, 64 at a time)", async () => {
    // About the retention, not deadlines: a generous command timeout for a loaded CI machine.
    const { store: jobs } = store({ commandTimeoutMs: 30_000 });
    const { job: victim } = await jobs.create(job('b-1', 'b', 'running'));
    const finished = await jobs.update('b-1', victim.version, { status: 'completed' });
    expect(finished.ok).toBe(true);
    const started = performance.now();
    const total = 100_000;
    const lanes = 64;
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        for (let i = next++; i < total; i = next++) {
          await jobs.create(job(`a-${i}`, 'a'));
          await jobs.requestCancel(`a-${i}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`100 000 short jobs of A on Redis: ${seconds.toFixed(1)} s`);
    expect(await jobs.get('b-1')).toMatchObject({ status: 'completed', ownerId: 'b' });
    // A keeps its newest 1 000 finished jobs (the default share), nothing older.
    expect(await jobs.get(`a-${total - 1}`)).toBeDefined();
    expect(await jobs.get('a-0')).toBeUndefined();
  }, 180_000);

  it("a job an approval links to is kept apart: its principal's own churn does not evict it", async () => {
    const { store: jobs } = store({ maxFinishedPerOwner: 10 });
    await jobs.create({ ...job('approved', 'a'), approvalId: 'apr_1' });
    await jobs.requestCancel('approved');
    for (let i = 0; i < 100; i++) {
      await jobs.create(job(`a-${i}`, 'a'));
      await jobs.requestCancel(`a-${i}`);
    }
    expect(await jobs.get('approved')).toMatchObject({ status: 'cancelled', approvalId: 'apr_1' });
    expect(await jobs.get('a-89')).toBeUndefined();
    expect(await jobs.get('a-90')).toBeDefined();
  });

  // maxJobs is split into per-bucket shares: one bucket makes this exact store-wide bound testable.
  it('when the store is full, the principal keeping the most finished jobs loses its oldest', async () => {
    const { store: jobs } = store({ maxJobs: 6, maxFinishedPerOwner: 10, buckets: 1 });
    for (const [id, owner] of [
      ['b-1', 'b'],
      ['a-1', 'a'],
      ['a-2', 'a'],
      ['a-3', 'a'],
      ['c-1', 'c'],
    ] as const) {
      await jobs.create(job(id, owner));
      await jobs.requestCancel(id);
    }
    await jobs.create(job('d-1', 'd'));
    await jobs.create(job('d-2', 'd'));
    expect(await jobs.get('a-1')).toBeUndefined();
    expect(await jobs.get('b-1')).toBeDefined();
    await jobs.create(job('d-3', 'd'));
    expect(await jobs.get('a-2')).toBeUndefined();
    expect(await jobs.get('b-1')).toBeDefined();
    expect(await jobs.get('c-1')).toBeDefined();
    expect(() => new RedisJobStore({ maxFinishedPerOwner: 0 })).toThrow(GatewayConfigError);
  });
});
