import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresJobStore, type PostgresJobStoreOptions } from '../src/index.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

// The outbox has no conformance suite in @svc/gateway-kit/testing: these are its cases, on two
// "instances" (stores) sharing one schema.
let postgres: TestPostgres;
let schemas: Schemas;
const closing: PostgresJobStore[] = [];
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterEach(async () => {
  await Promise.all(closing.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await schemas.close();
  await postgres.stop();
});

async function pair(options: PostgresJobStoreOptions = {}) {
  const schema = await schemas.fresh('ob');
  const open = () => {
    const store = new PostgresJobStore({
      connectionString: postgres.url,
      schema,
      sweepIntervalMs: 0,
      leaseMs: 500,
      poolSize: 4,
      ...options,
    });
    closing.push(store);
    return store;
  };
  return { schema, a: open(), b: open() };
}

const job = (jobId: string, url?: string) => ({
  jobId,
  ownerId: 'principal-1',
  invocationId: `inv-${jobId}`,
  actionId: 'export',
  actionName: 'Export',
  createdAt: new Date().toISOString(),
  status: 'running' as const,
  payload: url
    ? { callbacks: { jobResultUrl: url, authorization: 'Bearer cb' } }
    : { callbacks: {} },
});

const rows = (schema: string) =>
  schemas.query<{ webhook_id: string; claim: string | null; done: boolean; payload: string }>(
    `SELECT webhook_id, claim, done, payload FROM "${schema}".outbox ORDER BY webhook_id`,
  );

describe('PostgresCallbackOutbox', () => {
  it('a terminal write stores the job-result callback in the same transaction; another instance delivers it once the writer’s claim lapses', async () => {
    const { schema, a, b } = await pair();
    const created = await a.create(job('j1', 'https://hooks.example/jobs'));
    const finished = await a.update('j1', created.job.version, {
      status: 'completed',
      outputText: 'done',
      data: { rows: 3 },
    });
    expect(finished.ok).toBe(true);
    // Written with the job: nobody enqueued anything yet.
    expect(await rows(schema)).toMatchObject([{ webhook_id: 'job_j1_completed', done: false }]);
    expect(await b.callbackOutbox.claimDue(10)).toEqual([]); // claimed by A for leaseMs

    // A "dies" here. Once the lease runs out (on the database's clock), B claims it, body as the
    // gateway would send it.
    const [entry, ...more] = await vi.waitFor(
      async () => {
        const claimed = await b.callbackOutbox.claimDue(10);
        expect(claimed).not.toEqual([]);
        return claimed;
      },
      { timeout: 5_000, interval: 25 },
    );
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      webhookId: 'job_j1_completed',
      url: 'https://hooks.example/jobs',
      authorization: 'Bearer cb',
      attempts: 0,
    });
    const stored = finished.ok ? finished.job : undefined;
    expect(JSON.parse(entry!.payload)).toEqual({
      job: {
        jobId: 'j1',
        invocationId: 'inv-j1',
        status: 'completed',
        createdAt: stored!.createdAt,
        updatedAt: stored!.updatedAt,
        actionId: 'export',
        actionName: 'Export',
        outputText: 'done',
        data: { rows: 3 },
      },
    });
    // Delivered: kept as done, so reporting the job's end again cannot queue it twice.
    await b.callbackOutbox.complete(entry!.webhookId, entry!.claim);
    expect(await b.callbackOutbox.size()).toBe(0);
    expect(
      await b.callbackOutbox.enqueue({
        webhookId: 'job_j1_completed',
        url: 'https://x',
        payload: '{}',
      }),
    ).toBe('exists');
  });

  it('the writing instance’s gateway takes its stored entry over (its bytes win) and attempts at once', async () => {
    const { schema, a } = await pair({ leaseMs: 30_000 });
    const created = await a.create(job('j2', 'https://hooks.example/jobs'));
    await a.update('j2', created.job.version, {
      status: 'failed',
      error: { code: 'x', message: 'm', retryable: false },
    });
    const taken = await a.callbackOutbox.enqueue({
      webhookId: 'job_j2_failed',
      url: 'https://hooks.example/jobs',
      payload: '{"job":{"jobId":"j2","status":"failed"}}',
      authorization: 'Bearer cb',
    });
    expect(taken).toEqual({ claim: expect.any(String) });
    await a.announced('j2');
    expect(await rows(schema)).toMatchObject([
      {
        webhook_id: 'job_j2_failed',
        claim: (taken as { claim: string }).claim,
        payload: '{"job":{"jobId":"j2","status":"failed"}}',
      },
    ]);
  });

  it('a runner’s refused completion does not cost the winning cancel its take-over', async () => {
    const { a } = await pair({ leaseMs: 30_000 });
    const created = await a.create(job('j6', 'https://hooks.example/jobs'));
    expect((await a.requestCancel('j6')).ok).toBe(true);
    // The runner on the same instance tries to complete from the version it held: refused.
    const refused = await a.update('j6', created.job.version, { status: 'completed' });
    expect(refused).toMatchObject({ ok: false, reason: 'conflict' });
    // The gateway hands the cancel's callback over: taken over and attempted at once, not left
    // waiting for a 30 s claim to lapse.
    expect(
      await a.callbackOutbox.enqueue({
        webhookId: 'job_j6_cancelled',
        url: 'https://hooks.example/jobs',
        payload: '{}',
      }),
    ).toEqual({ claim: expect.any(String) });
  });

  it('announced without a take-over (callbacks off, URL refused) drops the stored entry', async () => {
    const { schema, a } = await pair();
    const created = await a.create(job('j3', 'https://hooks.example/jobs'));
    await a.update('j3', created.job.version, { status: 'completed' });
    expect(await rows(schema)).toHaveLength(1);
    await a.announced('j3');
    expect(await rows(schema)).toEqual([]);
  });

  it('a job without a jobResultUrl stores no entry; a cancel stores one', async () => {
    const { schema, a, b } = await pair();
    const plain = await a.create(job('j4'));
    await a.update('j4', plain.job.version, { status: 'completed' });
    await a.create(job('j5', 'https://hooks.example/jobs'));
    await b.requestCancel('j5');
    expect((await rows(schema)).map((row) => row.webhook_id)).toEqual(['job_j5_cancelled']);
  });

  it('racing claims of two instances never claim one entry twice (FOR UPDATE SKIP LOCKED)', async () => {
    const { a, b } = await pair({ leaseMs: 30_000 });
    for (let i = 0; i < 40; i++) {
      const stored = await a.callbackOutbox.enqueue({
        webhookId: `w${i}`,
        url: 'https://x',
        payload: '{}',
      });
      // Released at once: due for anyone.
      await a.callbackOutbox.reschedule(`w${i}`, (stored as { claim: string }).claim, 0, 0);
    }
    // Rounds of four racing claims (two per instance) until every entry was claimed once.
    const ids: string[] = [];
    for (let round = 0; round < 20 && ids.length < 40; round++) {
      const claimed = await Promise.all([
        a.callbackOutbox.claimDue(15),
        b.callbackOutbox.claimDue(15),
        a.callbackOutbox.claimDue(15),
        b.callbackOutbox.claimDue(15),
      ]);
      ids.push(...claimed.flat().map((entry) => entry.webhookId));
    }
    // Claims last 30 s: none came back within these rounds, and none was claimed twice.
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(40);
  });

  it('reschedule counts attempts and makes the entry due later; a stale claim changes nothing; plain entries leave on complete', async () => {
    const { a, b } = await pair({ leaseMs: 30_000 });
    const stored = await a.callbackOutbox.enqueue({
      webhookId: 'w1',
      url: 'https://x',
      payload: '{}',
    });
    const { claim } = stored as { claim: string };
    await b.callbackOutbox.reschedule('w1', 'not-the-claim', 5, 0);
    expect(await b.callbackOutbox.claimDue(10)).toEqual([]);
    await a.callbackOutbox.reschedule('w1', claim, 1, 0);
    const [entry] = await b.callbackOutbox.claimDue(10);
    expect(entry).toMatchObject({ webhookId: 'w1', attempts: 1 });
    await b.callbackOutbox.complete('w1', entry!.claim);
    expect(await a.callbackOutbox.size()).toBe(0);
    expect(
      await a.callbackOutbox.enqueue({ webhookId: 'w1', url: 'https://x', payload: '{}' }),
    ).not.toBe('exists');
  });

  it('holds at most maxPendingCallbacks pending entries', async () => {
    const { a } = await pair({ maxPendingCallbacks: 2 });
    const entry = (n: number) => ({ webhookId: `w${n}`, url: 'https://x', payload: '{}' });
    expect(await a.callbackOutbox.enqueue(entry(1))).not.toBe('full');
    expect(await a.callbackOutbox.enqueue(entry(2))).not.toBe('full');
    expect(await a.callbackOutbox.enqueue(entry(3))).toBe('full');
  });

  it('each principal has its own share of the outbox: one principal at its share is refused, others are not', async () => {
    const { a } = await pair({
      maxPendingCallbacksPerPrincipal: 2,
      maxPendingCallbackBytesPerPrincipal: 1_000,
    });
    // `principal` is set by dispatchers that name the entry's owner (issue 20).
    const entry = (n: number, principal: string, payload = '{}') => {
      const named = { webhookId: `w${n}`, url: 'https://x', payload, principal };
      return named;
    };
    expect(await a.callbackOutbox.enqueue(entry(1, 'noisy'))).not.toBe('full');
    expect(await a.callbackOutbox.enqueue(entry(2, 'noisy'))).not.toBe('full');
    expect(await a.callbackOutbox.enqueue(entry(3, 'noisy'))).toBe('full');
    expect(await a.callbackOutbox.enqueue(entry(4, 'quiet'))).not.toBe('full');
    // Bytes too: 1 000 bytes per principal.
    expect(await a.callbackOutbox.enqueue(entry(5, 'big', 'x'.repeat(800)))).not.toBe('full');
    expect(await a.callbackOutbox.enqueue(entry(6, 'big', 'y'.repeat(300)))).toBe('full');
    // Racing enqueues of one principal never exceed its share.
    const raced = await Promise.all(
      Array.from({ length: 10 }, (_, i) => a.callbackOutbox.enqueue(entry(100 + i, 'racer'))),
    );
    expect(raced.filter((result) => result !== 'full')).toHaveLength(2);
  });

  it('claims are fair across principals: one principal’s backlog does not hold the others back', async () => {
    const { schema, a, b } = await pair({ maxPendingCallbacksPerPrincipal: 1_000_000 });
    const entry = (n: number, principal: string) => {
      const named = { webhookId: `w${n}`, url: 'https://x', payload: '{}', principal };
      return named;
    };
    for (let i = 0; i < 30; i++) await a.callbackOutbox.enqueue(entry(i, 'noisy'));
    await a.callbackOutbox.enqueue(entry(100, 'quiet-1'));
    await a.callbackOutbox.enqueue(entry(101, 'quiet-2'));
    // Every claim of the enqueues lapsed (on the database's clock) before B claims any: a claim
    // while some were still held would not be the fair pick among all 32.
    await vi.waitFor(
      async () => {
        const [row] = await schemas.query<{ due: number }>(
          `SELECT count(*)::int AS due FROM "${schema}".outbox WHERE due_at <= now() AND NOT done`,
        );
        expect(row?.due).toBe(32);
      },
      { timeout: 5_000, interval: 25 },
    );
    const first = (await b.callbackOutbox.claimDue(4)).map((claimed) => claimed.webhookId);
    expect(first).toHaveLength(4);
    expect(first).toEqual(expect.arrayContaining(['w100', 'w101']));
  });
});
