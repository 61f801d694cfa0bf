import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresJobStore } from '../src/index.ts';
import { eventually } from './gateway-processes.ts';
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

const LEASE_MS = 2_000;
const quiet = (): void => {};
const job = (jobId: string) => ({
  jobId,
  ownerId: 'p',
  invocationId: `inv-${jobId}`,
  actionId: 'a',
  actionName: 'A',
  createdAt: new Date().toISOString(),
  status: 'running' as const,
});

it('an outage longer than the lease fails no live instance’s job; a dead instance’s still ends worker_lost', async () => {
  const schema = await schemas.fresh('outage');
  const options = {
    connectionString: postgres.url,
    schema,
    leaseMs: LEASE_MS,
    commandTimeoutMs: 500,
    onError: quiet,
  };
  // A runs a job and lives through the outage; C's instance died (closed) before it.
  const a = new PostgresJobStore({ ...options, sweepIntervalMs: 0 });
  const c = new PostgresJobStore({ ...options, sweepIntervalMs: 0 });
  const b = new PostgresJobStore({ ...options, sweepIntervalMs: 100 });
  try {
    const live = (await a.create(job('job_live'))).job;
    await c.create(job('job_dead'));
    await c.close();
    const lost: string[] = [];
    b.onWorkerLost((found) => void lost.push(found.jobId));

    // Down (every backend killed, as in a crash) for longer than a lease: every lease lapses,
    // and no renewal sent meanwhile survives to run later. A fixed wait: the outage itself (the
    // server is down, no state to wait for), half a second longer than the lease.
    await postgres.crash();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 500));
    await postgres.start();
    const resumed = Date.now();

    // B's sweeper finds the dead instance's job, within a lease and a few sweeps of the return.
    await eventually(
      async () => (lost.includes('job_dead') ? true : undefined),
      10_000,
      'worker_lost',
    );
    expect(Date.now() - resumed).toBeLessThan(LEASE_MS + 3_000);
    // …and left the live one alone: A renewed it meanwhile, and finishes it.
    expect(lost).toEqual(['job_dead']);
    expect((await b.get('job_live'))?.status).toBe('running');
    const finished = await a.update('job_live', live.version, { status: 'completed' });
    expect(finished).toMatchObject({ ok: true, job: { status: 'completed' } });
    expect((await b.get('job_dead'))?.error).toMatchObject({ code: 'worker_lost' });
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
}, 30_000);
