import { Webhook } from 'standardwebhooks';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  asyncGateway,
  OTHER_TOKEN,
  probe,
  SIGNING_SECRET,
  TOKEN,
} from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import { ApprovalRequiredResponseSchema, InvokeResponseSchema } from '../contract/index.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { ApprovalDecisionError } from './approval-decision-error.ts';

const BASE = 'https://gateway.acme.example';
let gateway: Gateway;
let client: ReturnType<typeof createTestClient>;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let now = Date.parse('2026-11-22T10:00:00Z');

beforeEach(async () => {
  probe.runs = 0;
  now = Date.parse('2026-11-22T10:00:00Z');
  receiver = await startCallbackReceiver();
  gateway = asyncGateway({ now: () => now, approvals: { ttlMs: 60_000 } });
  client = createTestClient(gateway, { token: TOKEN, baseUrl: BASE });
});
afterEach(async () => {
  await gateway.close();
  await receiver.close();
});

async function requestRefund(extra = {}) {
  const response = await client.invoke(
    invokeBody(
      'issue-refund',
      { orderId: 'ord_1', amountCents: 1250 },
      {
        callbacks: {
          approvalUrl: `${receiver.url}/approvals`,
          jobResultUrl: `${receiver.url}/jobs`,
          authorization: 'Bearer cb-token',
        },
        ...extra,
      },
    ),
  );
  expect(response.status).toBe(200);
  expect(v.is(ApprovalRequiredResponseSchema, response.body)).toBe(true);
  return (response.body as v.InferOutput<typeof ApprovalRequiredResponseSchema>).approval;
}

describe('approvals', () => {
  it('answers approval_required with id, reason, status URL and expiry, without running the action', async () => {
    const approval = await requestRefund();
    expect(approval.reason).toContain('Issue a refund');
    expect(approval.statusUrl).toBe(`${BASE}/v1/approvals/${approval.approvalId}`);
    expect(approval.expiresAt).toBe('2026-11-22T10:01:00.000Z');
    expect(probe.runs).toBe(0);
    const status = await client.request(`/v1/approvals/${approval.approvalId}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      approval: {
        approvalId: approval.approvalId,
        status: 'pending',
        input: { orderId: 'ord_1', amountCents: 1250 },
      },
    });
    expect(await gateway.approvals.list()).toHaveLength(1);
  });

  it('runs the approved action as a job, and calls back with the approval outcome and the job result', async () => {
    const approval = await requestRefund();
    const decided = await gateway.approvals.decide(approval.approvalId, {
      approved: true,
      decidedBy: 'ops@acme.example',
      note: 'ok',
    });
    expect(decided.approval).toMatchObject({
      status: 'approved',
      decidedBy: 'ops@acme.example',
      note: 'ok',
    });
    // One reading of the job, not two statuses of one job in one answer (this quick action has
    // finished by the time the answer is built; the job was created queued).
    expect(decided.job?.status).toBe('completed');
    expect(decided.approval.job).toEqual(decided.job);
    await gateway.idle();
    expect(probe.runs).toBe(1);
    const job = await client.job(decided.job!.jobId);
    expect(job.body).toMatchObject({
      status: 'completed',
      outputText: 'Refunded 1250 cents on ord_1.',
    });

    const byPath = Object.fromEntries(receiver.received.map((r) => [r.path, r]));
    const approvalCallback = byPath['/approvals']!;
    expect(approvalCallback.headers.authorization).toBe('Bearer cb-token');
    expect(JSON.parse(approvalCallback.body)).toEqual({
      approval: {
        approvalId: approval.approvalId,
        status: 'approved',
        decidedAt: '2026-11-22T10:00:00.000Z',
        decidedBy: 'ops@acme.example',
        note: 'ok',
        job: {
          jobId: decided.job!.jobId,
          status: 'queued',
          statusUrl: `${BASE}/v1/jobs/${decided.job!.jobId}`,
        },
      },
    });
    // Receivers can verify the signature with the standard library.
    const verifier = new Webhook(SIGNING_SECRET);
    expect(() =>
      verifier.verify(approvalCallback.body, {
        'webhook-id': String(approvalCallback.headers['webhook-id']),
        'webhook-timestamp': String(approvalCallback.headers['webhook-timestamp']),
        'webhook-signature': String(approvalCallback.headers['webhook-signature']),
      }),
    ).not.toThrow();
    expect(JSON.parse(byPath['/jobs']!.body).job).toMatchObject({ status: 'completed' });
  });

  it('decides once: a second decision is refused and changes nothing', async () => {
    const approval = await requestRefund();
    await gateway.approvals.decide(approval.approvalId, { approved: false, decidedBy: 'ops' });
    await expect(
      gateway.approvals.decide(approval.approvalId, { approved: true, decidedBy: 'mallory' }),
    ).rejects.toMatchObject({
      code: 'approval_already_decided',
      status: 'denied',
    });
    expect((await gateway.approvals.get(approval.approvalId))?.status).toBe('denied');
    await gateway.idle();
    expect(probe.runs).toBe(0);
    expect(receiver.received.map((r) => JSON.parse(r.body).approval.status)).toEqual(['denied']);
  });

  it('lets only one of two concurrent decisions win', async () => {
    const approval = await requestRefund();
    const results = await Promise.allSettled([
      gateway.approvals.decide(approval.approvalId, { approved: true, decidedBy: 'a' }),
      gateway.approvals.decide(approval.approvalId, { approved: false, decidedBy: 'b' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ApprovalDecisionError);
  });

  it('expires a pending approval at expiresAt: final, called back, no longer decidable', async () => {
    const approval = await requestRefund();
    now += 61_000;
    await expect(
      gateway.approvals.decide(approval.approvalId, { approved: true, decidedBy: 'ops' }),
    ).rejects.toMatchObject({
      code: 'approval_expired',
    });
    await gateway.idle();
    expect(receiver.received.map((r) => JSON.parse(r.body).approval)).toEqual([
      { approvalId: approval.approvalId, status: 'expired', decidedAt: '2026-11-22T10:01:00.000Z' },
    ]);
    expect(probe.runs).toBe(0);
    expect(await gateway.approvals.list()).toEqual([]);
    expect((await gateway.approvals.list({ status: 'expired' })).map((a) => a.approvalId)).toEqual([
      approval.approvalId,
    ]);
  });

  it('fails the job without running it when the invocation deadline passed before approval', async () => {
    const approval = await requestRefund({ deadlineAt: '2026-11-22T10:00:30Z' });
    now += 45_000;
    const decided = await gateway.approvals.decide(approval.approvalId, {
      approved: true,
      decidedBy: 'ops',
    });
    await gateway.idle();
    expect((await client.job(decided.job!.jobId)).body).toMatchObject({
      status: 'failed',
      error: { code: 'deadline_exceeded' },
    });
    expect(probe.runs).toBe(0);
  });

  it('shows an approval only to the principal that requested it', async () => {
    const approval = await requestRefund();
    const stranger = createTestClient(gateway, { token: OTHER_TOKEN, baseUrl: BASE });
    const response = await stranger.request(`/v1/approvals/${approval.approvalId}`);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: { code: 'approval_not_found' } });
  });

  it('refuses decisions on unknown approvals and malformed decisions', async () => {
    await expect(
      gateway.approvals.decide('apr_missing', { approved: true, decidedBy: 'ops' }),
    ).rejects.toMatchObject({
      code: 'approval_not_found',
    });
    const approval = await requestRefund();
    await expect(
      gateway.approvals.decide(approval.approvalId, { approved: 'yes', decidedBy: '' } as never),
    ).rejects.toThrow(TypeError);
  });

  it('applies a per-request approval policy, with its reason', async () => {
    const policed = asyncGateway({
      approvals: {
        policy: ({ action, input }) =>
          action.id === 'count-calls' && (input as { n: number }).n > 100
            ? 'Large counts need a human.'
            : false,
      },
    });
    const policedClient = createTestClient(policed, { token: TOKEN });
    expect((await policedClient.invoke(invokeBody('count-calls', { n: 5 }))).body).toMatchObject({
      status: 'completed',
    });
    const big = await policedClient.invoke(invokeBody('count-calls', { n: 500 }));
    expect(v.is(InvokeResponseSchema, big.body)).toBe(true);
    expect(big.body).toMatchObject({
      status: 'approval_required',
      approval: { reason: 'Large counts need a human.' },
    });
    await policed.close();
  });

  it('replays the same approval for a retried idempotent request', async () => {
    const first = await requestRefund({ idempotencyKey: 'refund-1' });
    const again = await requestRefund({ idempotencyKey: 'refund-1', invocationId: 'retry' });
    expect(again.approvalId).toBe(first.approvalId);
    expect(await gateway.approvals.list()).toHaveLength(1);
  });
});

describe('precheck', () => {
  it('refuses at invoke time, before any approval is requested or job created', async () => {
    const { defineAction } = await import('../actions/define-action.ts');
    const { reject } = await import('../actions/action-rejection.ts');
    const { issueRefund } = await import('../../test/async-fixture.ts');
    const capped = defineAction({
      ...issueRefund,
      precheck: ({ amountCents }) =>
        amountCents > 50_000
          ? reject({ code: 'amount_over_limit', message: 'Refunds above 500.00 are not allowed.' })
          : undefined,
    });
    const checked = asyncGateway({ actions: [capped] });
    const checkedClient = createTestClient(checked, { token: TOKEN });
    const big = await checkedClient.invoke(
      invokeBody('issue-refund', { orderId: 'o', amountCents: 60_000 }),
    );
    expect(big.body).toEqual({
      status: 'rejected',
      error: {
        code: 'amount_over_limit',
        message: 'Refunds above 500.00 are not allowed.',
        retryable: false,
      },
    });
    expect(await checked.approvals.list()).toEqual([]);
    const small = await checkedClient.invoke(
      invokeBody('issue-refund', { orderId: 'o', amountCents: 100 }),
    );
    expect(small.body).toMatchObject({ status: 'approval_required' });
    await checked.close();
  });
});
