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
async function deployment(sweepIntervalMs: number) {
  let clock = Date.now();
  const records = new MemoryRecordStore({ now: () => clock });
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
    const { receiver, instance, advance } = await deployment(20);
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
    const sweepsLater = Date.now() + 200;
    await expect.poll(() => Date.now() >= sweepsLater).toBe(true);
    await Promise.all([b.idle(), c.idle()]);
    expect(receiver.received).toHaveLength(1);
  });

  it('are left pending until their expiresAt', async () => {
    const { receiver, instance, advance } = await deployment(20);
    const a = instance();
    const approvalId = await requestRefund(a, receiver.url);
    await a.close();
    const b = instance();
    advance(TTL_MS - 1_000);
    const sweepsLater = Date.now() + 200;
    await expect.poll(() => Date.now() >= sweepsLater).toBe(true);
    await b.idle();
    expect(receiver.received).toEqual([]);
    expect((await b.approvals.get(approvalId))?.status).toBe('pending');
  });

  it('completes a decision whose instance stopped before creating the job: the job runs, the approval is called back', async () => {
    const { receiver, jobs, instance, advance } = await deployment(20);
    // A's job store never answers a create: A "dies" right after writing the decision.
    const stalled = new Proxy(jobs, {
      get(target, property) {
        if (property === 'create') return () => new Promise(() => {});
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const a = instance({ jobStore: stalled });
    const approvalId = await requestRefund(a, receiver.url);
    void a.approvals.decide(approvalId, { approved: true, decidedBy: 'ops@acme.example' });
    const b = instance();
    await expect.poll(async () => (await b.approvals.get(approvalId))?.status).toBe('approved');
    await a.close();
    // Within the grace period the deciding instance is presumed busy: nothing is done for it.
    advance(29_000);
    const sweepsLater = Date.now() + 200;
    await expect.poll(() => Date.now() >= sweepsLater).toBe(true);
    expect(receiver.received).toEqual([]);

    advance(2_000);
    await expect.poll(() => receiver.received.length, { timeout: 5_000 }).toBe(1);
    const body = JSON.parse(receiver.received[0]!.body);
    expect(body).toMatchObject({ approval: { approvalId, status: 'approved', job: {} } });
    const jobId: string = body.approval.job.jobId;
    await expect.poll(async () => (await jobs.get(jobId))?.status).toBe('completed');
    // Settled: later sweeps leave it alone.
    const moreSweeps = Date.now() + 200;
    await expect.poll(() => Date.now() >= moreSweeps).toBe(true);
    await b.idle();
    expect(receiver.received).toHaveLength(1);
  });

  it('completes an expiry whose instance stopped before calling back', async () => {
    const { receiver, records, instance, advance } = await deployment(20);
    // A's record store never answers once A starts settling the expiry: A "dies" right after
    // writing `expired`.
    const stalled = new Proxy(records, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === 'addToSet')
          return (set: string, ...rest: unknown[]) =>
            set === 'approvals:expired'
              ? new Promise(() => {})
              : (value as (...args: unknown[]) => unknown).call(target, set, ...rest);
        return typeof value === 'function' ? value.bind(target) : value;
      },
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
    const moreSweeps = Date.now() + 200;
    await expect.poll(() => Date.now() >= moreSweeps).toBe(true);
    await b.idle();
    expect(receiver.received).toHaveLength(1);
  });
});
