import { createGateway, defineAction, type Gateway } from '@svc/gateway-kit';
import { invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { PostgresJobStore, PostgresRecordStore } from '../src/index.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

const TOKEN = 'pg-two-instances-token';
const refund = defineAction({
  id: 'issue-refund',
  title: 'Issue a refund',
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  input: v.strictObject({ orderId: v.string() }),
  run: ({ orderId }) => ({ outputText: `Refunded ${orderId}.` }),
});

let postgres: TestPostgres;
let schemas: Schemas;
const closing: Array<() => Promise<void>> = [];
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await schemas.close();
  await postgres.stop();
});

function instance(schema: string): Gateway {
  const connection = { connectionString: postgres.url, schema, poolSize: 4 };
  const jobStore = new PostgresJobStore(connection);
  const recordStore = new PostgresRecordStore(connection);
  const gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    actions: [refund],
    auth: { tokens: [TOKEN] },
    jobStore,
    recordStore,
    callbacks: false,
  });
  closing.push(async () => {
    await gateway.close();
    await jobStore.close();
    await recordStore.close();
  });
  return gateway;
}

const request = (gateway: Gateway, method: string, path: string, body?: unknown) =>
  gateway
    .fetch(
      new Request(`https://gateway.acme.example${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )
    .then(async (response) => ({ status: response.status, body: await response.json() }));

it('an approval asked on A and decided on A is seen decided on B, and its job runs and is read there', async () => {
  const schema = await schemas.fresh('two');
  const [a, b] = [instance(schema), instance(schema)];
  const asked = await request(
    a,
    'POST',
    '/v1/invoke',
    invokeBody('issue-refund', { orderId: 'o1' }),
  );
  expect(asked.body.status).toBe('approval_required');
  const approvalId: string = asked.body.approval.approvalId;
  expect((await request(b, 'GET', `/v1/approvals/${approvalId}`)).body.approval).toMatchObject({
    approvalId,
    status: 'pending',
  });
  expect((await b.approvals.list()).map((approval) => approval.approvalId)).toEqual([approvalId]);

  const decided = await a.approvals.decide(approvalId, { approved: true, decidedBy: 'jane' });
  expect(decided.approval.status).toBe('approved');
  const seen = await request(b, 'GET', `/v1/approvals/${approvalId}`);
  expect(seen.body.approval).toMatchObject({ status: 'approved', decidedBy: 'jane' });
  const jobId: string = seen.body.approval.job.jobId;
  await a.idle();
  const finished = await request(b, 'GET', `/v1/jobs/${jobId}`);
  expect(finished.body).toMatchObject({ jobId, status: 'completed', outputText: 'Refunded o1.' });
  expect(await b.approvals.list()).toEqual([]);
});

it('an id that Postgres text cannot hold (a NUL) answers 404 like any unknown id, not 500', async () => {
  const schema = await schemas.fresh('nul');
  const gateway = instance(schema);
  for (const path of ['/v1/jobs/job_%00', '/v1/approvals/apr_%00']) {
    const read = await request(gateway, 'GET', path);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toMatch(/^(job|approval)_not_found$/);
  }
  expect((await request(gateway, 'POST', '/v1/jobs/job_%00/cancel')).status).toBe(404);
  await expect(
    gateway.approvals.decide('apr_\u0000', { approved: true, decidedBy: 'ops' }),
  ).rejects.toMatchObject({ code: 'approval_not_found' });
});
