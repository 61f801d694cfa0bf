import { afterEach, describe, expect, it } from 'vitest';
import { asyncGateway, TOKEN } from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import type { Gateway, GatewayOptions } from '../gateway/create-gateway.ts';
import { MemoryRecordStore } from '../records/memory-record-store.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const BASE = 'https://gateway.acme.example';
const TTL_MS = 60_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Two instances of one deployment: the same stores and one clock (a shared store's clock), moved
 * by the test. Each gateway keeps its own expiry timers, as separate processes would.
 */
/** `target` with some methods replaced; the others bound to it. */
function intercept<T extends object>(target: T, replaced: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, property) {
      if (Object.hasOwn(replaced, property)) return replaced[property as keyof T];
      const value = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

async function deployment(sweepIntervalMs: number) {
  let clock = Date.now();
  const store = new MemoryRecordStore({ now: () => clock });
  // Every sweep ends by reading the deciding index: counting those reads counts sweeps.
  let sweeps = 0;
  const records = intercept(store, {
    rangeOfSet: (set: string, ...rest: [number, undefined]) => {
      if (set === 'approvals:deciding') sweeps += 1;
      return store.rangeOfSet(set, ...rest);
    },
  });
  const jobs = new MemoryJobStore({ now: () => clock });
  const receiver = await startCallbackReceiver();
  cleanups.push(() => receiver.close());
  const instance = (overrides: Partial<GatewayOptions> = {}): Gateway => {
    const gateway = asyncGateway({
      now: () => clock,
      recordStore: records,
      jobStore: jobs,
      approvals: { ttlMs: TTL_MS, sweepIntervalMs },
      ...overrides,
    });
    cleanups.push(() => gateway.close());
    return gateway;
  };
  return {
    receiver,
    jobs,
    records,
    instance,
    advance: (ms: number) => {
      clock += ms;
    },
    /** Resolves once every instance has swept at least `count` more times. */
    afterSweeps: async (count: number, ...gateways: Gateway[]) => {
      const target = sweeps + count * gateways.length;
      await expect.poll(() => sweeps >= target, { timeout: 5_000 }).toBe(true);
      await Promise.all(gateways.map((gateway) => gateway.idle()));
    },
  };
}

async function requestRefund(gateway: Gateway, receiverUrl: string): Promise<string> {
  const client = createTestClient(gateway, { token: TOKEN, baseUrl: BASE });
  const response = await client.invoke(
    invokeBody(
      'issue-refund',
      { orderId: 'ord_1', amountCents: 1250 },
      { callbacks: { approvalUrl: `${receiverUrl}/approvals` } },
    ),
  );
  expect(response.status).toBe(200);
  return (response.body as { approval: { approvalId: string } }).approval.approvalId;
}

describe('approvals whose instance stopped', () => {
  it('are expired by another instance’s sweep, with one expired callback', async () => {
    const { receiver, instance, advance, afterSweeps } = await deployment(20);
    const a = instance();
    const approvalId = await requestRefund(a, receiver.url);
    // A stops (its expiry timer with it) before the approval is due.
    await a.close();
    const b = instance();
    const c = instance();
    advance(TTL_MS + 1);

    await expect.poll(() => receiver.received.length, { timeout: 5_000 }).toBe(1);
    const [callback] = receiver.received;
    expect(callback!.headers['webhook-id']).toBe(`approval_${approvalId}_expired`);
    expect(JSON.parse(callback!.body)).toMatchObject({
      approval: { approvalId, status: 'expired' },
    });
    expect((await b.approvals.get(approvalId))?.status).toBe('expired');
    expect(await c.approvals.list()).toEqual([]);
    // More sweeps of both instances: expired once, called back once.
    await afterSweeps(3, b, c);
    expect(receiver.received).toHaveLength(1);
  });

  it('are expired by gateway.approvals.sweep() where no timer sweeps (sweepIntervalMs 0), once', async () => {
    const { receiver, instance, advance } = await deployment(0);
    const a = instance();
    const approvalId = await requestRefund(a, receiver.url);
    await a.close();
    const b = instance();
    // Not yet due: nothing to touch.
    advance(TTL_MS - 1);
    expect(await b.approvals.sweep()).toBe(0);
    advance(2);
    expect(await b.approvals.sweep()).toBe(1);
    await b.idle();
    expect(receiver.received.map((callback) => callback.headers['webhook-id'])).toEqual([
      `approval_${approvalId}_expired`,
    ]);
    expect((await b.approvals.get(approvalId))?.status).toBe('expired');
    // Swept again: expired once, called back once.
    expect(await b.approvals.sweep()).toBe(0);
    await b.idle();
    expect(receiver.received).toHaveLength(1);
  });

  it('are left pending until their expiresAt', async () => {
    const { receiver, instance, advance, afterSweeps } = await deployment(20);
    const a = instance();
    const approvalId = await requestRefund(a, receiver.url);
    await a.close();
    const b = instance();
    advance(TTL_MS - 1_000);
    await afterSweeps(3, b);
    expect(receiver.received).toEqual([]);
    expect((await b.approvals.get(approvalId))?.status).toBe('pending');
  });

  it('completes a decision whose instance stopped before creating the job: the job runs, the approval is called back', async () => {
    const { receiver, jobs, instance, advance, afterSweeps } = await deployment(20);
    // A's job store never answers a create: A "dies" right after writing the decision.
    const a = instance({ jobStore: intercept(jobs, { create: () => new Promise(() => {}) }) });
    const approvalId = await requestRefund(a, receiver.url);
    void a.approvals.decide(approvalId, { approved: true, decidedBy: 'ops@acme.example' });
    const b = instance();
    await expect.poll(async () => (await b.approvals.get(approvalId))?.status).toBe('approved');
    await a.close();
    // Within the grace period the deciding instance is presumed busy: nothing is done for it.
    advance(29_000);
    await afterSweeps(3, b);
    expect(receiver.received).toEqual([]);

    advance(2_000);
    await expect.poll(() => receiver.received.length, { timeout: 5_000 }).toBe(1);
    const body = JSON.parse(receiver.received[0]!.body);
    expect(body).toMatchObject({ approval: { approvalId, status: 'approved', job: {} } });
    const jobId: string = body.approval.job.jobId;
    await expect.poll(async () => (await jobs.get(jobId))?.status).toBe('completed');
    // Settled: later sweeps leave it alone.
    await afterSweeps(3, b);
    expect(receiver.received).toHaveLength(1);
  });

  it('completes an expiry whose instance stopped before calling back', async () => {
    const { receiver, records, instance, advance, afterSweeps } = await deployment(20);
    // A's record store never answers once A starts settling the expiry: A "dies" right after
    // writing `expired`.
    const stalled = intercept(records, {
      addToSet: (set: string, member: string, ttlMs: number, maxSize?: number) =>
        set === 'approvals:expired'
          ? new Promise(() => {})
          : records.addToSet(set, member, ttlMs, maxSize),
    });
    const a = instance({ recordStore: stalled, approvals: { ttlMs: TTL_MS, sweepIntervalMs: 0 } });
    const approvalId = await requestRefund(a, receiver.url);
    advance(TTL_MS + 1);
    void a.approvals.get(approvalId); // a read expires it, then stalls
    const b = instance();
    await expect
      .poll(
        async () => (await records.get<{ status: string }>(`approval:${approvalId}`))?.value.status,
      )
      .toBe('expired');
    await a.close();
    expect(receiver.received).toEqual([]);

    advance(31_000);
    await expect.poll(() => receiver.received.length, { timeout: 5_000 }).toBe(1);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(`approval_${approvalId}_expired`);
    await afterSweeps(3, b);
    expect(receiver.received).toHaveLength(1);
  });
});
