import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { MemoryRecordStore } from '../records/memory-record-store.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { createGateway, type Gateway, type GatewayOptions } from './create-gateway.ts';

// What the gateway holds for a caller, not only what the caller sent (issue 20, item 1): the
// shape of `context` and `action.input` is budgeted, and every way a job or an approval ends drops
// the caller's input and context at once.

const TOKEN = 'token-of-principal-a';
const MARK = 'caller-secret-context-marker';

let release: () => void = () => {};
let gate = new Promise<void>((resolve) => {
  release = resolve;
});
const seen: unknown[] = [];

const slowExport = defineAction({
  id: 'slow-export',
  executionMode: 'async',
  timeoutMs: 60_000,
  input: v.strictObject({ n: v.number(), fail: v.optional(v.boolean()) }),
  run: async ({ n, fail }, { invocation, signal }) => {
    seen.push(invocation.context);
    await Promise.race([
      gate,
      new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
    ]);
    if (fail) throw new Error('boom');
    return { outputText: `export ${n} done` };
  },
});
const lookup = defineAction({
  id: 'lookup',
  input: v.looseObject({}),
  run: () => ({ outputText: 'found' }),
});
const refund = defineAction({
  id: 'refund',
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  input: v.strictObject({ orderId: v.string() }),
  run: () => ({ outputText: 'refunded' }),
});

let gateway: Gateway;
let jobs: MemoryJobStore;
let records: MemoryRecordStore;
afterEach(async () => {
  release();
  await gateway?.close();
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  seen.length = 0;
});

function start(overrides: Partial<GatewayOptions> = {}) {
  jobs = new MemoryJobStore();
  records = new MemoryRecordStore();
  gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    actions: [slowExport, lookup, refund],
    auth: { tokens: [{ token: TOKEN, principal: { id: 'principal-a' } }] },
    jobStore: jobs,
    recordStore: records,
    logger: { error: () => {}, warn: () => {} },
    ...overrides,
  });
  return createTestClient(gateway, { token: TOKEN });
}

/**
 * The worst shapes of a 64 KiB `context` an attacker would send that are over the shape budget
 * (the densest short keys, ~8 000, fit it: the bench sends those).
 */
function worstShapes(bytes = 65_000): Record<string, Record<string, unknown>> {
  const count = (unit: number) => Math.floor(bytes / unit);
  const shortKeys: Record<string, object> = {};
  for (let i = 0; i < count(9); i++) shortKeys[i.toString(36)] = {};
  let deep: unknown = [];
  for (let i = 0; i < 60; i++) deep = [deep];
  const deepJson = JSON.stringify(deep).length + 1;
  return {
    'empty objects': { o: Array.from({ length: count(3) }, () => ({})) },
    'short keys, 2 per member': shortKeys,
    'deep arrays': { d: Array.from({ length: count(deepJson) }, () => deep) },
  };
}

const post = (client: ReturnType<typeof start>, body: string) =>
  client.request('/v1/invoke', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });

describe('shape budget of context and action.input (limits.maxJsonNodes)', () => {
  it('refuses 64 KiB contexts of the worst shapes with the 413 envelope, before parsing the body', async () => {
    const client = start();
    for (const [shape, context] of Object.entries(worstShapes())) {
      const body = JSON.stringify(invokeBody('slow-export', { n: 1 }, { context }));
      expect(JSON.stringify(context).length, shape).toBeLessThanOrEqual(65_536);
      const response = await post(client, body);
      expect(response.status, shape).toBe(413);
      // The whole body over 2 × 8 192 + 1 024 nodes is refused unparsed; else the context.
      const { field } = (response.body as { error: { details: { field: string } } }).error.details;
      const maxNodes = field === 'body' ? 17_408 : 8_192;
      expect(response.body, shape).toEqual({
        error: {
          code: 'payload_too_large',
          message: `${field} holds more than ${maxNodes} objects, arrays and members.`,
          retryable: false,
          details: { field, maxNodes },
        },
      });
    }
    expect(jobs.size).toBe(0);
  });

  it('names context or action.input when that part alone is over its 8 192 nodes', async () => {
    const client = start();
    const nodes = (n: number) => ({ o: Array.from({ length: n }, () => ({})) });
    const overContext = await client.invoke(
      invokeBody('slow-export', { n: 1 }, { context: nodes(8_190) }),
    );
    expect(overContext.status).toBe(413);
    expect(overContext.body).toEqual({
      error: {
        code: 'payload_too_large',
        message: 'context holds more than 8192 objects, arrays and members.',
        retryable: false,
        details: { field: 'context', maxNodes: 8_192 },
      },
    });
    const overInput = await client.invoke(invokeBody('lookup', nodes(8_190)));
    expect(overInput.status).toBe(413);
    expect(overInput.body).toMatchObject({
      error: { details: { field: 'action.input', maxNodes: 8_192 } },
    });
    // At the limit (object, member, array and 8 189 objects = 8 192): accepted.
    const atLimit = await client.invoke(
      invokeBody('slow-export', { n: 1 }, { context: nodes(8_189) }),
    );
    expect(atLimit.body).toMatchObject({ status: 'accepted' });
  });

  it('does not count brackets and colons inside strings', async () => {
    const client = start();
    const context = { note: '{[:"\\'.repeat(8_000), other: 'a"b{' };
    const response = await client.invoke(invokeBody('lookup', {}, { context }));
    expect(response.body).toMatchObject({ status: 'completed' });
  });

  it('is an option, validated at createGateway', async () => {
    const client = start({ limits: { maxJsonNodes: 10 } });
    const response = await client.invoke(
      invokeBody('lookup', {}, { context: { a: [{}, {}, {}, {}, {}, {}, {}, {}, {}] } }),
    );
    expect(response.body).toMatchObject({ error: { details: { field: 'context', maxNodes: 10 } } });
    expect(() => start({ limits: { maxJsonNodes: 0 } })).toThrow(/limits\.maxJsonNodes/);
  });
});

describe("every way a job ends drops the caller's input and context", () => {
  const context = { note: MARK, items: [{ a: 1 }, { b: 2 }] };
  const accept = async (client: ReturnType<typeof start>, input: Record<string, unknown>) => {
    const response = await client.invoke(invokeBody('slow-export', input, { context }));
    return (response.body as { job: { jobId: string } }).job.jobId;
  };
  const held = async (jobId: string) => JSON.stringify(await jobs.get(jobId));

  it('the action reads its context as sent; the queued job holds it as text only', async () => {
    const client = start();
    const jobId = await accept(client, { n: 1 });
    expect(typeof (await jobs.get(jobId))?.request).toBe('string');
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toEqual(context);
    release();
    await gateway.idle();
    expect((await client.job(jobId)).body).toMatchObject({ status: 'completed' });
    expect(await held(jobId)).not.toContain(MARK);
    expect((await jobs.get(jobId))?.request).toBeUndefined();
  });

  it('cancelled (the first finding: a cancelled job kept its context for 24 h), failed, timed out', async () => {
    const client = start();
    const cancelled = await accept(client, { n: 1 });
    expect(await held(cancelled)).toContain(MARK);
    expect((await client.cancel(cancelled)).status).toBe(200);
    expect(await held(cancelled)).not.toContain(MARK);
    expect((await jobs.get(cancelled))?.request).toBeUndefined();

    const failed = await accept(client, { n: 2, fail: true });
    release();
    await gateway.idle();
    expect((await client.job(failed)).body).toMatchObject({ status: 'failed' });
    expect(await held(failed)).not.toContain(MARK);

    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const late = await client.invoke(
      invokeBody(
        'slow-export',
        { n: 3 },
        { context, deadlineAt: new Date(Date.now() + 30).toISOString() },
      ),
    );
    const lateId = (late.body as { job: { jobId: string } }).job.jobId;
    await gateway.idle();
    expect((await client.job(lateId)).body).toMatchObject({
      status: 'failed',
      error: { code: 'deadline_exceeded' },
    });
    expect(await held(lateId)).not.toContain(MARK);
    expect(jobs.bytes).toBeLessThan(3 * 2_000);
  });
});

describe("every way an approval ends drops the caller's input and context", () => {
  const context = { note: MARK };
  const request = async (client: ReturnType<typeof start>) => {
    const response = await client.invoke(invokeBody('refund', { orderId: MARK }, { context }));
    return (response.body as { approval: { approvalId: string } }).approval.approvalId;
  };
  const held = async (approvalId: string) =>
    JSON.stringify(await records.get(`approval:${approvalId}`));

  it('denied, approved (its job keeps them until it ends) and expired', async () => {
    let now = Date.now();
    const client = start({ approvals: { ttlMs: 60_000 }, now: () => now });
    const denied = await request(client);
    expect(await held(denied)).toContain(MARK);
    expect((await gateway.approvals.get(denied))?.input).toEqual({ orderId: MARK });
    await gateway.approvals.decide(denied, { approved: false, decidedBy: 'ops' });
    expect(await held(denied)).not.toContain(MARK);
    expect((await gateway.approvals.get(denied))?.input).toBeUndefined();

    const approved = await request(client);
    const decided = await gateway.approvals.decide(approved, { approved: true, decidedBy: 'ops' });
    expect(decided.approval.input).toBeUndefined();
    const { job } = decided;
    expect(await held(approved)).not.toContain(MARK);
    await gateway.idle();
    expect(JSON.stringify(await jobs.get(job!.jobId))).not.toContain(MARK);
    // Retained apart from the principal's other jobs, as long as the approval (see the stores).
    expect((await jobs.get(job!.jobId))?.approvalId).toBe(approved);

    const expired = await request(client);
    now += 61_000;
    expect((await gateway.approvals.get(expired))?.status).toBe('expired');
    expect(await held(expired)).not.toContain(MARK);
  });
});

describe("heldBytes: what one principal's queued and running jobs hold", () => {
  it("refuses a job past the principal's byte budget with 429 quota_exceeded; others unaffected; a cancel frees it", async () => {
    // 64 KiB: four 16 KiB units; each of these jobs holds ~20 KiB, so two units.
    const context = { note: 'x'.repeat(20_000) };
    const client = start({
      auth: {
        tokens: [
          { token: TOKEN, principal: { id: 'principal-a' } },
          { token: 'token-b', principal: { id: 'principal-b' } },
        ],
      },
      quotas: { heldBytes: 64 * 1024 },
    });
    const other = createTestClient(gateway, { token: 'token-b' });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const accepted = await client.invoke(invokeBody('slow-export', { n: i }, { context }));
      expect(accepted.body).toMatchObject({ status: 'accepted' });
      ids.push((accepted.body as { job: { jobId: string } }).job.jobId);
    }
    const refused = await client.invoke(invokeBody('slow-export', { n: 3 }, { context }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toEqual({
      error: {
        code: 'quota_exceeded',
        message: 'Too many bytes held for queued or running jobs for this caller; retry later.',
        retryable: true,
        details: { quota: 'heldBytes', limit: 65_536 },
      },
    });
    // B has its own budget: not affected at all.
    expect(
      (await other.invoke(invokeBody('slow-export', { n: 4 }, { context }))).body,
    ).toMatchObject({ status: 'accepted' });
    await client.cancel(ids[0]!);
    expect(
      (await client.invoke(invokeBody('slow-export', { n: 5 }, { context }))).body,
    ).toMatchObject({ status: 'accepted' });
  });
});
