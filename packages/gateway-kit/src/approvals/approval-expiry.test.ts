import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asyncGateway, probe, TOKEN } from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import { ApprovalRequiredResponseSchema } from '../contract/index.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const BASE = 'https://gateway.acme.example';
// From the real clock, not a fixed date: `settle()` goes back to real timers, so the gateway's
// clock must land near the faked one whatever the day the suite runs.
const START = Date.now();
const TTL_MS = 60_000;

let gateway: Gateway;
let client: ReturnType<typeof createTestClient>;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;

beforeEach(async () => {
  probe.runs = 0;
  // Start the loopback receiver on real timers; fake only the clock and timeouts afterwards, so
  // sockets and fetch keep working while the approval's expiry timer is under the test's control.
  receiver = await startCallbackReceiver();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: START });
  gateway = asyncGateway({ now: () => Date.now(), approvals: { ttlMs: TTL_MS } });
  client = createTestClient(gateway, { token: TOKEN, baseUrl: BASE });
});

afterEach(async () => {
  vi.useRealTimers();
  await gateway.close();
  await receiver.close();
});

async function requestRefund() {
  const response = await client.invoke(
    invokeBody(
      'issue-refund',
      { orderId: 'ord_1', amountCents: 1250 },
      { callbacks: { approvalUrl: `${receiver.url}/approvals`, authorization: 'Bearer cb' } },
    ),
  );
  expect(response.status).toBe(200);
  expect(v.is(ApprovalRequiredResponseSchema, response.body)).toBe(true);
  return (response.body as v.InferOutput<typeof ApprovalRequiredResponseSchema>).approval;
}

/** Lets the expiry's background work (record write, callback POST to loopback) finish on real timers. */
async function settle(): Promise<void> {
  vi.useRealTimers();
  await gateway.idle();
}

describe('approval expiry without anyone touching the approval', () => {
  it('expires at expiresAt on its own: expired callback POSTed, no longer listed as pending', async () => {
    const approval = await requestRefund();
    expect(approval.expiresAt).toBe(new Date(START + TTL_MS).toISOString());
    expect(await gateway.approvals.list()).toHaveLength(1);

    // One millisecond before expiresAt nothing has happened.
    await vi.advanceTimersByTimeAsync(TTL_MS - 1);
    await gateway.idle();
    expect(receiver.received).toEqual([]);

    // Past expiresAt the gateway's own timer expires it; no API call is made in between.
    await vi.advanceTimersByTimeAsync(2);
    await settle();
    expect(receiver.received).toHaveLength(1);
    const [callback] = receiver.received;
    expect(callback!.path).toBe('/approvals');
    expect(callback!.headers.authorization).toBe('Bearer cb');
    expect(callback!.headers['webhook-id']).toBe(`approval_${approval.approvalId}_expired`);
    expect(JSON.parse(callback!.body)).toEqual({
      approval: {
        approvalId: approval.approvalId,
        status: 'expired',
        decidedAt: approval.expiresAt,
      },
    });

    expect(await gateway.approvals.list()).toEqual([]);
    expect(await gateway.approvals.list({ status: 'expired' })).toEqual([
      expect.objectContaining({ approvalId: approval.approvalId, status: 'expired' }),
    ]);
    const status = await client.request(`/v1/approvals/${approval.approvalId}`);
    expect(status.body).toMatchObject({ approval: { status: 'expired' } });
    expect(probe.runs).toBe(0);
    // Expiry is reported once, even after further reads.
    await gateway.idle();
    expect(receiver.received).toHaveLength(1);
  });

  it('an approval decided before expiresAt never sends an expired callback', async () => {
    const approval = await requestRefund();
    await vi.advanceTimersByTimeAsync(TTL_MS / 2);
    await gateway.approvals.decide(approval.approvalId, { approved: false, decidedBy: 'ops' });
    await vi.advanceTimersByTimeAsync(TTL_MS);
    await settle();
    expect(receiver.received.map((r) => JSON.parse(r.body).approval.status)).toEqual(['denied']);
    expect((await gateway.approvals.get(approval.approvalId))?.status).toBe('denied');
  });
});
