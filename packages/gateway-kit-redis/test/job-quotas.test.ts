import { randomUUID } from 'node:crypto';
import { createGateway, defineAction, type Gateway } from '@svc/gateway-kit';
import { createTestClient, invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { RedisJobStore, RedisRecordStore } from '../src/index.ts';
import { useRedis } from './redis-fixture.ts';

// Issue 24: on one node the job store takes a job's activeJobs and heldBytes budgets in its create
// and gives them back in its terminal write. The caller sees what it saw with the record store's
// claims: the same 429, the same limits, across instances, and the budget back once a job ends.

const fixture = useRedis();
const { closers } = fixture;

/** Two instances of one deployment on one Redis; their action waits until `finish()` is called. */
function deployment(quotas: { activeJobs?: number; heldBytes?: number }) {
  const prefix = `t:${randomUUID()}:`;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const instance = (): Gateway => {
    const jobStore = new RedisJobStore({ url: fixture.redis.url, prefix });
    const recordStore = new RedisRecordStore({ url: fixture.redis.url, prefix });
    closers.push(
      () => jobStore.close(),
      () => recordStore.close(),
    );
    const gateway = createGateway({
      gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
      actions: [
        defineAction({
          id: 'export',
          executionMode: 'async',
          input: v.strictObject({ note: v.optional(v.string()) }),
          run: async () => {
            await finished;
            return { outputText: 'Exported.' };
          },
        }),
      ],
      auth: { tokens: ['t'] },
      jobStore,
      recordStore,
      quotas,
    });
    closers.push(() => gateway.close());
    return gateway;
  };
  return { prefix, finish, a: instance(), b: instance() };
}

const jobIdOf = (body: unknown): string => (body as { job: { jobId: string } }).job.jobId;

describe('job budgets kept by the Redis job store', () => {
  it('activeJobs: the third job over two instances is refused with 429; once they end it is accepted', async () => {
    const app = deployment({ activeJobs: 2 });
    const a = createTestClient(app.a, { token: 't' });
    const b = createTestClient(app.b, { token: 't' });
    const first = await a.invoke(invokeBody('export', {}));
    const second = await b.invoke(invokeBody('export', {}));
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await b.invoke(invokeBody('export', {}));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toMatchObject({
      error: {
        code: 'quota_exceeded',
        retryable: true,
        details: { quota: 'activeJobs', limit: 2 },
      },
    });
    // The claims live with the jobs: the record store holds none.
    expect(await fixture.raw.keys(`${app.prefix}*activeJobs*`)).toEqual([]);
    app.finish();
    for (const id of [jobIdOf(first.body), jobIdOf(second.body)])
      await expect
        .poll(async () => ((await a.job(id)).body as { status: string }).status)
        .toBe('completed');
    expect((await a.invoke(invokeBody('export', {}))).status).toBe(200);
  });

  it('heldBytes: a second job holding 20 KiB of request past 32 KiB is refused; a small one fits', async () => {
    const app = deployment({ heldBytes: 48 * 1024 });
    const a = createTestClient(app.a, { token: 't' });
    const note = 'x'.repeat(20 * 1024); // two 16 KiB units with the rest of the request
    expect((await a.invoke(invokeBody('export', { note }))).status).toBe(200);
    const refused = await a.invoke(invokeBody('export', { note }));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: 'quota_exceeded', details: { quota: 'heldBytes', limit: 48 * 1024 } },
    });
    expect((await a.invoke(invokeBody('export', {}))).status).toBe(200);
    app.finish();
  });

  it('heldBytes: a small job holds one unit and a large one each of its units, across instances, until it ends', async () => {
    const app = deployment({ heldBytes: 48 * 1024 }); // three 16 KiB units
    const a = createTestClient(app.a, { token: 't' });
    const b = createTestClient(app.b, { token: 't' });
    const note = 'x'.repeat(20 * 1024); // two units
    const large = await a.invoke(invokeBody('export', { note }));
    expect(large.status).toBe(200);
    const small = await b.invoke(invokeBody('export', {}));
    expect(small.status).toBe(200);
    const refused = await b.invoke(invokeBody('export', {}));
    expect(refused.body).toMatchObject({ error: { details: { quota: 'heldBytes' } } });
    // The large job's two units come back with its end: two small jobs fit, a third does not.
    expect((await b.cancel(jobIdOf(large.body))).status).toBe(200);
    expect((await a.invoke(invokeBody('export', {}))).status).toBe(200);
    expect((await b.invoke(invokeBody('export', {}))).status).toBe(200);
    expect((await a.invoke(invokeBody('export', {}))).status).toBe(429);
    // The small ones' units come back when they complete.
    app.finish();
    await expect
      .poll(async () => ((await a.job(jobIdOf(small.body))).body as { status: string }).status)
      .toBe('completed');
    await expect
      .poll(async () => (await a.invoke(invokeBody('export', { note }))).status)
      .toBe(200);
  });

  it('a cancelled job gives its budget back at once', async () => {
    const app = deployment({ activeJobs: 1 });
    const a = createTestClient(app.a, { token: 't' });
    const b = createTestClient(app.b, { token: 't' });
    const first = await a.invoke(invokeBody('export', {}));
    expect((await b.invoke(invokeBody('export', {}))).status).toBe(429);
    expect((await b.cancel(jobIdOf(first.body))).status).toBe(200);
    expect((await b.invoke(invokeBody('export', {}))).status).toBe(200);
    app.finish();
  });
});
