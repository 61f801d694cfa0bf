import { randomUUID } from 'node:crypto';
import { createGateway, defineAction, type Gateway } from '@svc/gateway-kit';
import type { ApprovalRequestedEvent } from '@svc/gateway-kit/observe';
import { invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RedisJobStore, RedisRecordStore } from '../src/index.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

const TOKEN = 'redis-hooks-test-token';
const refund = defineAction({
  id: 'issue-refund',
  title: 'Issue a refund',
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  input: v.strictObject({ orderId: v.string() }),
  run: ({ orderId }) => ({ outputText: `Refunded ${orderId}.` }),
});

let redis: TestRedis;
const closing: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(() => redis.stop());

/** A gateway instance on the shared Redis stores (same prefix), recording onApprovalRequested. */
function instance(prefix: string, requested: ApprovalRequestedEvent[]): Gateway {
  const jobStore = new RedisJobStore({ url: redis.url, prefix });
  const recordStore = new RedisRecordStore({ url: redis.url, prefix });
  const gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    actions: [refund],
    auth: { tokens: [TOKEN] },
    jobStore,
    recordStore,
    callbacks: false,
    hooks: { onApprovalRequested: (event) => void requested.push(event) },
  });
  closing.push(async () => {
    await gateway.close();
    await jobStore.close();
    await recordStore.close();
  });
  return gateway;
}

const invoke = (gateway: Gateway, body: unknown) =>
  gateway.fetch(
    new Request('https://gateway.acme.example/v1/invoke', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );

it('onApprovalRequested fires once per approval, before the approval_required answer, across instances', async () => {
  const prefix = `hooks:${randomUUID()}:`;
  const requested: ApprovalRequestedEvent[] = [];
  const [a, b] = [instance(prefix, requested), instance(prefix, requested)];
  const body = invokeBody('issue-refund', { orderId: 'ord_1' }, { idempotencyKey: 'refund-ord-1' });

  // The same request on both instances at once, then again: one approval, one event.
  const answers = await Promise.all([invoke(a, body), invoke(b, body)]);
  const firstId = ((await answers[0]!.json()) as { approval: { approvalId: string } }).approval
    .approvalId;
  expect(requested.map((event) => event.approvalId)).toEqual([firstId]);
  expect(
    ((await answers[1]!.json()) as { approval: { approvalId: string } }).approval.approvalId,
  ).toBe(firstId);
  await invoke(b, body);
  expect(requested).toHaveLength(1);
  expect(requested[0]).toMatchObject({
    invocationId: body.invocationId,
    actionId: 'issue-refund',
    principalId: 'default',
  });
  expect(requested[0]!.validatedInput()).toEqual({ orderId: 'ord_1' });

  // Another approval: another event, already there when its answer arrives.
  const other = await invoke(b, invokeBody('issue-refund', { orderId: 'ord_2' }));
  const otherId = ((await other.json()) as { approval: { approvalId: string } }).approval
    .approvalId;
  expect(requested.map((event) => event.approvalId)).toEqual([firstId, otherId]);
});
