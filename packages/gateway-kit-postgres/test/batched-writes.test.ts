import { JobStoreFullError, type NewJob } from '@svc/gateway-kit/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresJobStore } from '../src/index.ts';
import { countedPool } from './counted-pool.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

// Concurrent creates and updates of one instance are coalesced into one statement per round trip
// (write_jobs); each caller still gets exactly the answer its write alone would have had.

let postgres: TestPostgres;
let schemas: Schemas;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await schemas.close();
  await postgres.stop();
});

/** A store on a pool whose statements are counted. */
async function countedStore(options: { maxFinishedPerOwner?: number; maxJobs?: number } = {}) {
  const schema = await schemas.fresh();
  const counted = countedPool(postgres.url);
  const store = new PostgresJobStore({
    pool: counted,
    schema,
    sweepIntervalMs: 0,
    commandTimeoutMs: 10_000,
    ...options,
  });
  closers.push(
    () => counted.end(),
    () => store.close(),
  );
  return { store, counted, schema };
}

const newJob = (jobId: string, extra: Partial<NewJob> = {}): NewJob => ({
  jobId,
  ownerId: 'alice',
  invocationId: `inv_${jobId}`,
  actionId: 'export',
  actionName: 'Export',
  createdAt: new Date().toISOString(),
  status: 'queued',
  ...extra,
});

describe('PostgresJobStore write batching', () => {
  it('coalesces concurrent writes and answers each caller as its write alone would', async () => {
    const { store, counted, schema } = await countedStore();
    const ids = Array.from({ length: 40 }, (_, i) => `job_${i}`);
    // 40 creates plus a second create of job_0 in the same turn: exactly one of the two creates it.
    const created = await Promise.all([
      ...ids.map((id) =>
        store.create(
          newJob(id, {
            payload: { callbacks: { jobResultUrl: `https://hooks.example/${id}` } },
          }),
        ),
      ),
      store.create(newJob('job_0')),
    ]);
    expect(counted.statements).toBeLessThan(10);
    expect(created.filter((c) => c.created)).toHaveLength(40);
    const job0 = created.filter((c) => c.job.jobId === 'job_0');
    expect(job0.map((c) => c.created).sort()).toEqual([false, true]);
    expect(job0[0]!.job).toEqual(job0[1]!.job);

    // One batch of updates: legal moves, a stale version, an illegal move, an unknown job.
    counted.statements = 0;
    const [running, stale, illegal, unknown] = await Promise.all([
      Promise.all(ids.slice(1).map((id) => store.update(id, 1, { status: 'running' }))),
      store.update('job_0', 7, { status: 'running' }),
      store.update('job_0', 1, { status: 'completed' }),
      store.update('job_missing', 1, { status: 'running' }),
    ]);
    expect(counted.statements).toBeLessThan(10);
    expect(running.every((r) => r.ok && r.job.status === 'running' && r.job.version === 2)).toBe(
      true,
    );
    expect(stale).toMatchObject({ ok: false, reason: 'conflict', job: { version: 1 } });
    expect(illegal).toMatchObject({ ok: false, reason: 'invalid_transition' });
    expect(unknown).toEqual({ ok: false, reason: 'not_found' });

    // Terminal writes in one batch: each job's outbox entry committed with it.
    const completed = await Promise.all(
      ids.slice(1).map((id) => store.update(id, 2, { status: 'completed', outputText: id })),
    );
    expect(completed.every((r) => r.ok && r.job.status === 'completed')).toBe(true);
    const outbox = await schemas.query<{ webhook_id: string }>(
      `SELECT webhook_id FROM "${schema}".outbox ORDER BY webhook_id`,
    );
    expect(outbox.map((row) => row.webhook_id)).toEqual(
      ids
        .slice(1)
        .map((id) => `job_${id}_completed`)
        .sort(),
    );
    // Two writers racing on one job in one batch: one wins, the other is told the version moved.
    const race = await Promise.all([
      store.update('job_0', 1, { status: 'running' }),
      store.update('job_0', 1, { status: 'cancelled' }),
    ]);
    expect(race.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(race.find((r) => !r.ok)).toMatchObject({ reason: 'conflict' });
  });

  it('announces concurrent finished jobs in one statement, dropping the callbacks nobody took', async () => {
    const { store, counted, schema } = await countedStore();
    const ids = Array.from({ length: 10 }, (_, i) => `announce_${i}`);
    const callbacks = (id: string) => ({
      callbacks: { jobResultUrl: `https://hooks.example/${id}` },
    });
    await Promise.all(
      ids.map((id) => store.create(newJob(id, { status: 'running', payload: callbacks(id) }))),
    );
    await Promise.all(ids.map((id) => store.update(id, 1, { status: 'completed' })));
    const pending = () =>
      schemas.query<{ job_id: string; announce_at: string | null; entries: number }>(
        `SELECT j.job_id, j.announce_at,
           (SELECT count(*)::int FROM "${schema}".outbox o WHERE o.job_id = j.job_id) AS entries
         FROM "${schema}".jobs j ORDER BY j.job_id`,
      );
    expect((await pending()).every((row) => row.announce_at !== null && row.entries === 1)).toBe(
      true,
    );
    counted.statements = 0;
    await Promise.all(ids.map((id) => store.announced(id)));
    expect(counted.statements).toBeLessThanOrEqual(2);
    expect(await pending()).toEqual(
      [...ids].sort().map((job_id) => ({ job_id, announce_at: null, entries: 0 })),
    );
  });

  it('a write the database refuses inside a batch fails only its caller', async () => {
    const { store, schema } = await countedStore();
    // A rule of the DBA's that refuses one job: raised inside write_jobs, mid-batch.
    await schemas.query(
      `CREATE FUNCTION "${schema}".refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.job_id = 'poison' THEN RAISE EXCEPTION 'job poison refused'; END IF;
         RETURN NEW;
       END $$;
       CREATE TRIGGER refuse_poison BEFORE INSERT ON "${schema}".jobs
       FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_poison();`,
    );
    const settled = await Promise.allSettled(
      ['a', 'poison', 'b', 'c'].map((id) => store.create(newJob(id))),
    );
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toContain('job poison refused');
    expect((await store.get('a'))?.status).toBe('queued');
    expect(await store.get('poison')).toBeUndefined();
    // A value Postgres cannot hold (NUL in text) fails before the function runs: the same.
    const nul = await Promise.allSettled(
      ['d', 'e\u0000', 'f'].map((id) => store.create(newJob(id))),
    );
    expect(nul.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('keeps maxJobs within a batch; concurrent batches overshoot by at most their creates', async () => {
    const { store, schema } = await countedStore({ maxJobs: 5 });
    // 12 creates in one turn: 2 statements of 6. Each counts its own creates against the bound,
    // so each creates at most 5; neither sees the other's uncommitted ones (documented overshoot).
    const settled = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => store.create(newJob(`bound_${i}`))),
    );
    const created = settled.filter((s) => s.status === 'fulfilled').length;
    expect(created).toBeGreaterThanOrEqual(5);
    expect(created).toBeLessThanOrEqual(10);
    for (const s of settled)
      if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(JobStoreFullError);
    const [row] = await schemas.query<{ jobs: number; counted: number }>(
      `SELECT (SELECT count(*)::int FROM "${schema}".jobs) AS jobs,
              (SELECT sum(n)::int FROM "${schema}".counts WHERE name = 'jobs') AS counted`,
    );
    expect(row).toEqual({ jobs: created, counted: created });
    // Every job is active: nothing to evict, the next create is refused.
    await expect(store.create(newJob('bound_next'))).rejects.toBeInstanceOf(JobStoreFullError);
  });

  it('keeps per-principal retention shares when batches finish several of their jobs', async () => {
    const { store, schema } = await countedStore({ maxFinishedPerOwner: 8 });
    const ids = Array.from({ length: 40 }, (_, i) => `share_${i}`);
    await Promise.all(ids.map((id) => store.create(newJob(id, { status: 'running' }))));
    // 32 finished concurrently (in batches), then 8 one at a time.
    await Promise.all(ids.slice(0, 32).map((id) => store.update(id, 1, { status: 'completed' })));
    for (const id of ids.slice(32)) await store.update(id, 1, { status: 'completed' });
    const rows = await schemas.query<{ job_id: string }>(
      `SELECT job_id FROM "${schema}".jobs WHERE owner_id = 'alice' ORDER BY finished_seq`,
    );
    // The 40th finish trims the share to its 8 latest.
    expect(rows.map((row) => row.job_id)).toEqual(ids.slice(32));
  });
});
