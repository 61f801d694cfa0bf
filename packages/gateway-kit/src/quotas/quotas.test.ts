import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody, type TestResponse } from '../testing/index.ts';

const A = 'token-of-principal-a';
const B = 'token-of-principal-b';

/** Jobs of this action run until the test lets them go. */
let letGo: () => void = () => {};
let gate = new Promise<void>((resolve) => {
  letGo = resolve;
});
let syncRuns = 0;

const slowExport = defineAction({
  id: 'slow-export',
  executionMode: 'async',
  timeoutMs: 60_000,
  input: v.strictObject({ n: v.number() }),
  run: async ({ n }) => {
    await gate;
    return { outputText: `export ${n} done` };
  },
});
const refund = defineAction({
  id: 'refund',
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  input: v.strictObject({ orderId: v.string() }),
  run: () => ({ outputText: 'refunded' }),
});
const lookup = defineAction({
  id: 'lookup',
  idempotent: true,
  input: v.strictObject({ id: v.string(), size: v.optional(v.number(), 0) }),
  run: async ({ id, size }) => {
    syncRuns += 1;
    return { outputText: `found ${id}`, data: { blob: 'x'.repeat(size) } };
  },
});
/** Sync runs of `hold` started (each waits for `gate`), and a wake-up when they reach a count. */
let holding = 0;
let holdingReached: { count: number; resolve: () => void } | undefined;
const hold = defineAction({
  id: 'hold',
  timeoutMs: 60_000,
  input: v.strictObject({}),
  run: async () => {
    holding += 1;
    if (holdingReached && holding >= holdingReached.count) holdingReached.resolve();
    await gate;
    return { outputText: 'held' };
  },
});
const crash = defineAction({
  id: 'crash',
  input: v.strictObject({}),
  run: () => {
    throw new Error('boom');
  },
});
const holdersRunning = (count: number): Promise<void> =>
  new Promise((resolve) => {
    holdingReached = { count, resolve };
    if (holding >= count) resolve();
  });
const bigResult = defineAction({
  id: 'big-result',
  executionMode: 'async',
  input: v.strictObject({}),
  run: async () => ({ data: { blob: 'x'.repeat(300 * 1024) } }),
});

let gateway: Gateway;
afterEach(async () => {
  letGo();
  await gateway?.close();
  gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  holding = 0;
  holdingReached = undefined;
});

function start(overrides: Partial<GatewayOptions> = {}) {
  gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    actions: [slowExport, refund, lookup, bigResult, hold, crash],
    auth: {
      tokens: [
        { token: A, principal: { id: 'principal-a' } },
        { token: B, principal: { id: 'principal-b' } },
      ],
    },
    logger: { error: () => {}, warn: () => {} },
    ...overrides,
  });
  return { a: createTestClient(gateway, { token: A }), b: createTestClient(gateway, { token: B }) };
}

function expectQuotaExceeded(response: TestResponse, quota: string, limit: number): void {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    error: {
      code: 'quota_exceeded',
      message: expect.any(String),
      retryable: true,
      details: { quota, limit },
    },
  });
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('per-principal quotas (defaults)', () => {
  it('A at its 100 active jobs gets 429; B still gets its jobs, sync and idempotent answers', async () => {
    const { a, b } = start();
    for (let n = 0; n < 100; n++) {
      const accepted = await a.invoke(invokeBody('slow-export', { n }));
      expect(accepted.body).toMatchObject({ status: 'accepted' });
    }
    for (let n = 0; n < 3; n++)
      expectQuotaExceeded(await a.invoke(invokeBody('slow-export', { n })), 'activeJobs', 100);

    expect((await b.invoke(invokeBody('slow-export', { n: 1 }))).body).toMatchObject({
      status: 'accepted',
    });
    expect((await b.invoke(invokeBody('lookup', { id: 'x' }))).body).toMatchObject({
      status: 'completed',
    });
    expect(
      (await b.invoke(invokeBody('lookup', { id: 'x' }, { idempotencyKey: 'b-1' }))).body,
    ).toMatchObject({ status: 'completed' });
    expect((await b.invoke(invokeBody('refund', { orderId: 'o1' }))).body).toMatchObject({
      status: 'approval_required',
    });

    // Finished jobs give the budget back.
    letGo();
    await gateway.idle();
    expect((await a.invoke(invokeBody('slow-export', { n: 101 }))).body).toMatchObject({
      status: 'accepted',
    });
  });

  it('A at its 50 pending approvals gets 429; B is asked for approval; a decision frees a slot', async () => {
    const { a, b } = start();
    const ids: string[] = [];
    for (let n = 0; n < 50; n++) {
      const response = await a.invoke(invokeBody('refund', { orderId: `o${n}` }));
      expect(response.body).toMatchObject({ status: 'approval_required' });
      ids.push((response.body as { approval: { approvalId: string } }).approval.approvalId);
    }
    expectQuotaExceeded(
      await a.invoke(invokeBody('refund', { orderId: 'one-more' })),
      'pendingApprovals',
      50,
    );
    expect((await b.invoke(invokeBody('refund', { orderId: 'b' }))).body).toMatchObject({
      status: 'approval_required',
    });
    await gateway.approvals.decide(ids[0]!, { approved: false, decidedBy: 'ops' });
    expect((await a.invoke(invokeBody('refund', { orderId: 'again' }))).body).toMatchObject({
      status: 'approval_required',
    });
  });

  it('A at its 1 000 idempotency keys gets 429 for a new key, still gets its replays; B is unaffected', async () => {
    const { a, b } = start();
    for (let n = 0; n < 1_000; n++) {
      const response = await a.invoke(
        invokeBody('lookup', { id: 'x' }, { idempotencyKey: `k${n}` }),
      );
      expect(response.status).toBe(200);
    }
    expectQuotaExceeded(
      await a.invoke(invokeBody('lookup', { id: 'x' }, { idempotencyKey: 'k-new' })),
      'idempotencyKeys',
      1_000,
    );
    const replay = await a.invoke(invokeBody('lookup', { id: 'x' }, { idempotencyKey: 'k7' }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await a.invoke(invokeBody('lookup', { id: 'x' }))).status).toBe(200);
    expect(
      (await b.invoke(invokeBody('lookup', { id: 'x' }, { idempotencyKey: 'k-new' }))).status,
    ).toBe(200);
  });

  it('A with 64 sync invokes in progress gets 429 for the next; B is still answered; answers free the slots', async () => {
    const { a, b } = start();
    const held = Array.from({ length: 64 }, () => a.invoke(invokeBody('hold')));
    await holdersRunning(64);
    expectQuotaExceeded(await a.invoke(invokeBody('hold')), 'concurrentInvokes', 64);
    expectQuotaExceeded(
      await a.invoke(invokeBody('slow-export', { n: 1 })),
      'concurrentInvokes',
      64,
    );
    expect(holding).toBe(64);

    expect((await b.invoke(invokeBody('lookup', { id: 'x' }))).body).toMatchObject({
      status: 'completed',
    });

    letGo();
    for (const response of await Promise.all(held))
      expect(response.body).toEqual({ status: 'completed', outputText: 'held' });
    expect((await a.invoke(invokeBody('lookup', { id: 'x' }))).body).toMatchObject({
      status: 'completed',
    });
  });

  it('every way an invoke ends gives its concurrentInvokes slot back', async () => {
    const { a } = start({ quotas: { concurrentInvokes: 1 } });
    const answers = [];
    for (let n = 0; n < 5; n++) {
      answers.push((await a.invoke(invokeBody('no-such-action'))).status);
      answers.push((await a.invoke(invokeBody('lookup', { id: 7 }))).status);
      answers.push((await a.invoke({ invocationId: 'x' })).status);
      answers.push((await a.invoke(invokeBody('crash'))).status);
      answers.push((await a.invoke(invokeBody('refund', { orderId: `o${n}` }))).status);
      answers.push((await a.invoke(invokeBody('slow-export', { n }))).status);
    }
    expect(new Set(answers)).toEqual(new Set([422, 500, 200]));
    expect((await a.invoke(invokeBody('lookup', { id: 'x' }))).body).toMatchObject({
      status: 'completed',
    });
  });

  it('quotas are options, and a wrong one fails at createGateway', () => {
    expect(() => start({ quotas: { activeJobs: 0 } })).toThrow(/quotas\.activeJobs/);
    expect(() => start({ quotas: { concurrentInvokes: 0 } })).toThrow(/quotas\.concurrentInvokes/);
    expect(() => start({ quotas: { activeJob: 3 } as never })).toThrow(/activeJob is not a known/);
    expect(() => start({ limits: { maxContextBytes: -1 } })).toThrow(/limits\.maxContextBytes/);
  });
});

/** An object-heavy context of about `bytes` bytes of JSON (many small objects). */
function objectHeavyContext(bytes: number): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const value = { a: i, b: [i, { c: 'v' }] };
    context[`k${i}`] = value;
    size += JSON.stringify(`k${i}`).length + JSON.stringify(value).length + 2;
  }
  return context;
}

describe('byte budgets', () => {
  const post = (client: ReturnType<typeof start>['a'], body: string) =>
    client.request('/v1/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  it('300 async invokes with ~786 KB object-heavy contexts are each refused with the 413 envelope', async () => {
    const { a } = start();
    const context = objectHeavyContext(786 * 1024);
    const body = JSON.stringify(invokeBody('slow-export', { n: 1 }, { context }));
    expect(body.length).toBeGreaterThan(786 * 1024);
    for (let i = 0; i < 300; i++) {
      const response = await post(a, body);
      expect(response.status).toBe(413);
      // Refused by the body limit (256 KiB) before anything is parsed.
      expect(response.body).toEqual({
        error: {
          code: 'payload_too_large',
          message: 'The request body is larger than 262144 bytes.',
          retryable: false,
          details: { field: 'body', maxBytes: 262_144 },
        },
      });
    }
    expect((await a.invoke(invokeBody('lookup', { id: 'x' }))).body).toMatchObject({
      status: 'completed',
    });
  });

  it('with the body limit raised, the context budget (64 KiB) refuses them, naming the field', async () => {
    // The shape budget raised too, or it would refuse these (many small objects) first.
    const { a } = start({ maxBodyBytes: 1024 * 1024, limits: { maxJsonNodes: 1_000_000 } });
    const body = JSON.stringify(
      invokeBody('slow-export', { n: 1 }, { context: objectHeavyContext(786 * 1024) }),
    );
    for (let i = 0; i < 10; i++) {
      const response = await post(a, body);
      expect(response.status).toBe(413);
      expect(response.body).toEqual({
        error: {
          code: 'payload_too_large',
          message: 'context is larger than 65536 bytes as JSON.',
          retryable: false,
          details: { field: 'context', maxBytes: 65_536 },
        },
      });
    }
    expect(await gateway.approvals.list()).toHaveLength(0);
  });

  it('a context within the budget is fine, also for a sync action; one byte over is refused', async () => {
    const { a } = start({ limits: { maxContextBytes: 10_000 } });
    const fits = { note: 'x'.repeat(10_000 - '{"note":""}'.length) };
    expect((await a.invoke(invokeBody('lookup', { id: 'x' }, { context: fits }))).status).toBe(200);
    const over = { note: `${fits.note}é` };
    const refused = await a.invoke(invokeBody('lookup', { id: 'x' }, { context: over }));
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ error: { details: { field: 'context' } } });
  });

  it('a job or approval record over maxStoredBytes is refused, naming action.input, never echoing it', async () => {
    const { a } = start({ limits: { maxStoredBytes: 32 * 1024 } });
    const secretish = `sk_${'z'.repeat(40 * 1024)}`;
    for (const body of [
      invokeBody('refund', { orderId: secretish }),
      invokeBody('slow-export', { n: 1 }, { context: { note: secretish } }),
    ]) {
      const response = await a.invoke(body);
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({
        error: {
          code: 'payload_too_large',
          details: { field: expect.any(String), maxBytes: 32_768 },
        },
      });
      expect(JSON.stringify(response.body)).not.toContain('zzzz');
    }
    // The same input as a sync invoke is not stored, so it is not limited by maxStoredBytes.
    expect((await a.invoke(invokeBody('lookup', { id: secretish }))).status).toBe(200);
    expect(await gateway.approvals.list()).toHaveLength(0);
  });

  it('a job result over maxResultBytes fails the job with result_too_large', async () => {
    const { a } = start();
    const accepted = await a.invoke(invokeBody('big-result', {}));
    const { jobId } = (accepted.body as { job: { jobId: string } }).job;
    await gateway.idle();
    expect((await a.job(jobId)).body).toMatchObject({
      status: 'failed',
      error: { code: 'result_too_large', retryable: false, details: { maxBytes: 262_144 } },
    });
  });

  it('an idempotent answer too large to keep is not replayed: the retry is told so, the action ran once', async () => {
    const { a } = start({ limits: { maxResultBytes: 4_096 } });
    syncRuns = 0;
    const body = invokeBody('lookup', { id: 'x', size: 8_000 }, { idempotencyKey: 'big' });
    expect((await a.invoke(body)).body).toMatchObject({ status: 'completed' });
    const retry = await a.invoke({ ...body, invocationId: 'inv_retry' });
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({
      error: { code: 'idempotency_replay_unavailable', retryable: false },
    });
    expect(syncRuns).toBe(1);
  });

  it("replayBytes: a principal's kept answers stop at its share; past it an answer is given once, and other principals keep theirs", async () => {
    // 100 000-byte answers: 7 units of 16 KiB, 6 past the one the key pays for. 16 units: two fit.
    const { a, b } = start({ quotas: { replayBytes: 16 * 16 * 1024 } });
    syncRuns = 0;
    const big = (key: string) =>
      invokeBody('lookup', { id: key, size: 100_000 }, { idempotencyKey: key });
    const answers = [];
    for (const key of ['k1', 'k2', 'k3']) answers.push(await a.invoke(big(key)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // The first two are replayed; the third, past the share, was not kept.
    for (const [index, key] of ['k1', 'k2'].entries()) {
      const retry = await a.invoke({ ...big(key), invocationId: `inv_retry_${key}` });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(answers[index]!.body);
    }
    const refused = await a.invoke({ ...big('k3'), invocationId: 'inv_retry_k3' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: { code: 'idempotency_replay_unavailable', retryable: false },
    });
    expect(syncRuns).toBe(3);
    // Small answers cost no share: principal a still keeps them.
    const small = invokeBody('lookup', { id: 's' }, { idempotencyKey: 'small' });
    await a.invoke(small);
    expect((await a.invoke({ ...small, invocationId: 'inv_retry_small' })).status).toBe(200);
    // Principal b has a share of its own.
    const first = await b.invoke(big('k3'));
    const retry = await b.invoke({ ...big('k3'), invocationId: 'inv_retry_b' });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(syncRuns).toBe(5);
  });
});
