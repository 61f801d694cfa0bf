import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresJobStore } from '../src/index.ts';
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

const job = (jobId: string, ownerId: string, approvalId?: string) => ({
  jobId,
  ownerId,
  invocationId: `inv-${jobId}`,
  actionId: 'a',
  actionName: 'A',
  createdAt: new Date().toISOString(),
  status: 'running' as const,
  ...(approvalId ? { approvalId } : {}),
});

it("maxFinishedPerOwner: one principal's churn trims its own finished jobs, never another's or its approved job", async () => {
  const schema = await schemas.fresh('share');
  const store = new PostgresJobStore({
    connectionString: postgres.url,
    schema,
    maxFinishedPerOwner: 5,
    sweepIntervalMs: 0,
  });
  try {
    const other = await store.create(job('other', 'owner-b'));
    await store.update('other', other.job.version, { status: 'completed' });
    const approved = await store.create(job('approved', 'owner-a', 'appr_1'));
    await store.update('approved', approved.job.version, { status: 'completed' });
    for (let i = 0; i < 60; i++) {
      const { job: created } = await store.create(job(`churn-${i}`, 'owner-a'));
      await store.requestCancel(created.jobId);
    }
    const [row] = await schemas.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".jobs WHERE owner_id = 'owner-a' AND approval_id IS NULL`,
    );
    // Trimmed by one finish in 8: at most maxFinishedPerOwner + 7.
    expect(row!.n).toBeGreaterThanOrEqual(5);
    expect(row!.n).toBeLessThanOrEqual(12);
    // The newest survive; the other principal's job and the approved job are untouched.
    expect((await store.get('churn-59'))?.status).toBe('cancelled');
    expect(await store.get('churn-0')).toBeUndefined();
    expect((await store.get('other'))?.status).toBe('completed');
    expect((await store.get('approved'))?.status).toBe('completed');
  } finally {
    await store.close();
  }
});
