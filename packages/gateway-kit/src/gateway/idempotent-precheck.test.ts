import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { reject } from '../actions/action-rejection.ts';
import { defineAction } from '../actions/define-action.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { createGateway, type Gateway } from './create-gateway.ts';

// A retry under an idempotency key must get the first request's answer, even when what that
// request did makes user code that runs before the key is claimed (the action's precheck, the
// gateway's approval policy) decide otherwise now: the classic lost-response retry of a refund.

const TOKEN = 'idempotent-precheck-token';
const Order = v.strictObject({ orderId: v.string() });

/** Orders refunded so far, and how often each hook ran. */
function shop() {
  const refunded = new Set<string>();
  const calls = { precheck: 0, run: 0, policy: 0 };
  const precheck = ({ orderId }: { orderId: string }) => {
    calls.precheck += 1;
    return refunded.has(orderId)
      ? reject({ code: 'already_refunded', message: 'This order was refunded already.' })
      : undefined;
  };
  const run = async ({ orderId }: { orderId: string }) => {
    calls.run += 1;
    refunded.add(orderId);
    return { outputText: `Refunded ${orderId}.` };
  };
  return { refunded, calls, precheck, run };
}

let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

function start(
  actions: Parameters<typeof createGateway>[0]['actions'],
  policy?: () => string | false,
) {
  gateway = createGateway({
    gateway: { id: 'shop', name: 'Shop', url: 'https://gateway.shop.example' },
    actions,
    auth: { tokens: [TOKEN] },
    ...(policy ? { approvals: { policy } } : {}),
  });
  return createTestClient(gateway, { token: TOKEN });
}

const retryOf = (body: ReturnType<typeof invokeBody>) => ({ ...body, invocationId: 'inv_retry' });

describe('a retry under an idempotency key gets the first answer before user code runs again', () => {
  it('sync: the completed answer is replayed; the precheck does not refuse the retry', async () => {
    const s = shop();
    const client = start([
      defineAction({ id: 'refund', input: Order, precheck: s.precheck, run: s.run }),
    ]);
    const body = invokeBody('refund', { orderId: 'o1' }, { idempotencyKey: 'k1' });
    const first = await client.invoke(body);
    expect(first.body).toEqual({ status: 'completed', outputText: 'Refunded o1.' });
    const retry = await client.invoke(retryOf(body));
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(s.calls).toMatchObject({ precheck: 1, run: 1 });

    // Without a key the precheck judges every request, as before.
    const unkeyed = await client.invoke(invokeBody('refund', { orderId: 'o1' }));
    expect(unkeyed.body).toMatchObject({ status: 'rejected', error: { code: 'already_refunded' } });
    // The same key for another request is still a mismatch, before the precheck runs.
    const other = await client.invoke(
      invokeBody('refund', { orderId: 'o2' }, { idempotencyKey: 'k1' }),
    );
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: { code: 'idempotency_mismatch' } });
    expect(s.calls).toMatchObject({ precheck: 2, run: 1 });
  });

  it('sync: a precheck refusal is still not stored, so the key stays free', async () => {
    const s = shop();
    s.refunded.add('o1');
    const client = start([
      defineAction({ id: 'refund', input: Order, precheck: s.precheck, run: s.run }),
    ]);
    const body = invokeBody('refund', { orderId: 'o1' }, { idempotencyKey: 'k-refused' });
    expect((await client.invoke(body)).body).toMatchObject({ status: 'rejected' });
    s.refunded.delete('o1');
    const retry = await client.invoke(retryOf(body));
    expect(retry.body).toEqual({ status: 'completed', outputText: 'Refunded o1.' });
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(s.calls).toMatchObject({ precheck: 2, run: 1 });
  });

  it('async: the retry gets the same accepted job after it ran', async () => {
    const s = shop();
    const client = start([
      defineAction({
        id: 'refund',
        executionMode: 'async',
        input: Order,
        precheck: s.precheck,
        run: s.run,
      }),
    ]);
    const body = invokeBody('refund', { orderId: 'o1' }, { idempotencyKey: 'k-async' });
    const first = await client.invoke(body);
    expect(first.body).toMatchObject({ status: 'accepted' });
    await gateway!.idle();
    expect(s.refunded.has('o1')).toBe(true);
    const retry = await client.invoke(retryOf(body));
    expect(retry.body).toEqual(first.body);
    expect(s.calls).toMatchObject({ precheck: 1, run: 1 });
  });

  it('approval: the retry gets the same approval after it was approved and ran', async () => {
    const s = shop();
    const client = start([
      defineAction({
        id: 'refund',
        requiresApproval: true,
        input: Order,
        precheck: s.precheck,
        run: s.run,
      }),
    ]);
    const body = invokeBody('refund', { orderId: 'o1' }, { idempotencyKey: 'k-approval' });
    const first = await client.invoke(body);
    expect(first.body).toMatchObject({ status: 'approval_required' });
    const { approvalId } = (first.body as { approval: { approvalId: string } }).approval;
    await gateway!.approvals.decide(approvalId, { approved: true, decidedBy: 'ops' });
    await gateway!.idle();
    expect(s.refunded.has('o1')).toBe(true);
    const retry = await client.invoke(retryOf(body));
    expect(retry.body).toEqual(first.body);
    expect(s.calls).toMatchObject({ precheck: 1, run: 1 });
  });

  it('approval policy: a retry is not run without approval because the policy now says no', async () => {
    const s = shop();
    const client = start(
      [defineAction({ id: 'refund', input: Order, run: s.run })],
      // Approval only for orders not refunded yet: a policy that reads what the run changes.
      () => {
        s.calls.policy += 1;
        return s.refunded.size === 0 ? 'First refunds need a person.' : false;
      },
    );
    const body = invokeBody('refund', { orderId: 'o1' }, { idempotencyKey: 'k-policy' });
    const first = await client.invoke(body);
    expect(first.body).toMatchObject({ status: 'approval_required' });
    const { approvalId } = (first.body as { approval: { approvalId: string } }).approval;
    await gateway!.approvals.decide(approvalId, { approved: true, decidedBy: 'ops' });
    await gateway!.idle();
    const retry = await client.invoke(retryOf(body));
    expect(retry.body).toEqual(first.body);
    expect(s.calls).toMatchObject({ policy: 1, run: 1 });
  });
});
