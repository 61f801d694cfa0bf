import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const TOKEN = 'approvals-at-scale-token';
let runs = 0;
const refund = defineAction({
  id: 'refund',
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  input: v.strictObject({ orderId: v.string() }),
  run: ({ orderId }) => {
    runs += 1;
    return { outputText: `refunded ${orderId}` };
  },
});

let gateway: Gateway;
afterEach(() => gateway.close());

/** A gateway on a clock the test moves (from today: nothing here depends on the date). */
function start(overrides: Partial<GatewayOptions> = {}) {
  let now = Date.now();
  gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    actions: [refund],
    auth: { tokens: [TOKEN] },
    logger: { error: () => {}, warn: () => {} },
    now: () => now,
    ...overrides,
  });
  const client = createTestClient(gateway, { token: TOKEN });
  const request = async (orderId: string, idempotencyKey?: string) => {
    const response = await client.invoke(
      invokeBody('refund', { orderId }, idempotencyKey ? { idempotencyKey } : {}),
    );
    expect(response.body).toMatchObject({ status: 'approval_required' });
    return (response.body as { approval: { approvalId: string } }).approval.approvalId;
  };
  return { request, advance: (ms: number) => (now += ms) };
}

describe('approvals at scale', () => {
  it('after 10 000 decided or expired approvals, a new pending approval is listed at once', async () => {
    const { request, advance } = start({
      approvals: { ttlMs: 60_000 },
      quotas: { pendingApprovals: 10_000 },
    });
    const first = [];
    for (let i = 0; i < 5_000; i++) first.push(await request(`expire-${i}`));
    advance(60_001); // the first 5 000 expire
    for (let i = 0; i < 5_000; i++) {
      const id = await request(`deny-${i}`);
      await gateway.approvals.decide(id, { approved: false, decidedBy: 'ops' });
    }
    const fresh = await request('the-new-one');
    const pending = await gateway.approvals.list({ limit: 10 });
    expect(pending.map((approval) => approval.approvalId)).toEqual([fresh]);
    expect(pending.nextCursor).toBeUndefined();
    expect(await gateway.approvals.list({ status: 'denied', limit: 3 })).toHaveLength(3);
    // An expired approval is expired on its first read (or by its timer), then listed as such.
    expect((await gateway.approvals.get(first[0]!))?.status).toBe('expired');
    const expired = await gateway.approvals.list({ status: 'expired' });
    expect(expired.map((approval) => approval.approvalId)).toEqual([first[0]]);
  }, 30_000);

  it('pages through pending approvals oldest first, each once, with limit and cursor', async () => {
    const { request, advance } = start();
    const ids = [];
    for (let i = 0; i < 23; i++) {
      ids.push(await request(`o${i}`));
      advance(1);
    }
    const seen: string[] = [];
    let page = await gateway.approvals.list({ limit: 10 });
    seen.push(...page.map((approval) => approval.approvalId));
    while (page.nextCursor) {
      page = await gateway.approvals.list({ limit: 10, cursor: page.nextCursor });
      seen.push(...page.map((approval) => approval.approvalId));
    }
    expect(seen).toEqual(ids);
    await expect(gateway.approvals.list({ cursor: 'garbage' })).rejects.toThrow(RangeError);
  });

  it('an approval requested again under the same idempotency key after the first one expired runs again, as a new job', async () => {
    const { request, advance } = start({ approvals: { ttlMs: 1_000, retentionMs: 1_000 } });
    runs = 0;
    const id = await request('o-1', 'same-key');
    const first = await gateway.approvals.decide(id, { approved: true, decidedBy: 'ops' });
    await gateway.idle();
    expect(runs).toBe(1);
    expect(first.job).toMatchObject({
      statusUrl: `https://gateway.acme.example/v1/jobs/${first.job!.jobId}`,
      cancelUrl: `https://gateway.acme.example/v1/jobs/${first.job!.jobId}/cancel`,
    });

    advance(1_001); // the approval record is gone; its job is still kept (24 h)
    expect(await gateway.approvals.get(id)).toBeUndefined();
    const again = await request('o-1', 'same-key');
    expect(again).toBe(id); // derived from the key
    const second = await gateway.approvals.decide(again, { approved: true, decidedBy: 'ops' });
    await gateway.idle();
    expect(second.job!.jobId).not.toBe(first.job!.jobId);
    expect(runs).toBe(2);
  });
});
