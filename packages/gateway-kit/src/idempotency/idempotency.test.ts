import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asyncGateway, OTHER_TOKEN, probe, TOKEN } from '../../test/async-fixture.ts';
import { ErrorEnvelopeSchema } from '../contract/index.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import { canonicalJson } from '../runtime/fingerprint.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

let gateway: Gateway;
let client: ReturnType<typeof createTestClient>;
beforeEach(() => {
  probe.runs = 0;
  gateway = asyncGateway();
  client = createTestClient(gateway, { token: TOKEN });
});
afterEach(() => gateway.close());

describe('idempotencyKey on sync actions', () => {
  it('refuses an empty key with 422 invalid_request, without running the action', async () => {
    const answer = await client.invoke(invokeBody('count-calls', { n: 1 }, { idempotencyKey: '' }));
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({
      error: {
        code: 'invalid_request',
        details: { issues: [expect.objectContaining({ path: 'idempotencyKey' })] },
      },
    });
    expect(probe.runs).toBe(0);
  });

  it('runs the handler exactly once for 50 concurrent identical requests', async () => {
    const body = invokeBody('count-calls', { n: 7 }, { idempotencyKey: 'key-50' });
    // The first run is held until the other 49 are answered: all 50 overlap, however slow the
    // machine (a handler of a fixed duration could end before the last request arrives).
    let release = (): void => {};
    probe.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered = 0;
    const pending = Array.from({ length: 50 }, () =>
      client.invoke(body).finally(() => {
        answered += 1;
      }),
    );
    try {
      await vi.waitFor(() => expect(answered).toBe(49), { timeout: 5_000, interval: 5 });
    } finally {
      release();
      probe.hold = undefined;
    }
    const answers = await Promise.all(pending);
    expect(probe.runs).toBe(1);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const busy of answers.filter((a) => a.status === 409)) {
      expect(busy.body).toMatchObject({
        error: { code: 'idempotency_in_progress', retryable: true },
      });
    }
  });

  it('replays the stored answer to a retry, marked as replayed, without running again', async () => {
    const body = invokeBody('count-calls', { n: 1 }, { idempotencyKey: 'key-replay' });
    const first = await client.invoke(body);
    const retry = await client.invoke({ ...body, invocationId: 'a-new-invocation-id' });
    expect(probe.runs).toBe(1);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
  });

  it('treats key order in the input as the same request', async () => {
    await client.invoke(
      invokeBody('count-calls', { n: 1, crash: false }, { idempotencyKey: 'k-order' }),
    );
    const reordered = await client.invoke(
      invokeBody('count-calls', { crash: false, n: 1 }, { idempotencyKey: 'k-order' }),
    );
    expect(reordered.status).toBe(200);
    expect(probe.runs).toBe(1);
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: 3 } })).toBe(
      '{"a":{"c":3,"d":[1,{"e":2,"f":1}]},"b":1}',
    );
  });

  it('answers 422 idempotency_mismatch when the key is reused for a different request', async () => {
    await client.invoke(invokeBody('count-calls', { n: 1 }, { idempotencyKey: 'key-mismatch' }));
    const different = await client.invoke(
      invokeBody('count-calls', { n: 2 }, { idempotencyKey: 'key-mismatch' }),
    );
    expect(different.status).toBe(422);
    expect(v.is(ErrorEnvelopeSchema, different.body)).toBe(true);
    expect(different.body).toMatchObject({
      error: { code: 'idempotency_mismatch', retryable: false },
    });
    expect(probe.runs).toBe(1);
  });

  it('scopes keys to the principal and the action', async () => {
    await client.invoke(invokeBody('count-calls', { n: 1 }, { idempotencyKey: 'shared-key' }));
    const other = createTestClient(gateway, { token: OTHER_TOKEN });
    expect(
      (await other.invoke(invokeBody('count-calls', { n: 1 }, { idempotencyKey: 'shared-key' })))
        .status,
    ).toBe(200);
    expect(probe.runs).toBe(2);
    const otherAction = await client.invoke(
      invokeBody('generate-report', { topic: 'x' }, { idempotencyKey: 'shared-key' }),
    );
    expect(otherAction.body).toMatchObject({ status: 'accepted' });
  });

  it('releases the key after a retryable failure so the retry runs again', async () => {
    const body = invokeBody('count-calls', { n: 1, crash: true }, { idempotencyKey: 'key-crash' });
    expect((await client.invoke(body)).status).toBe(500);
    expect((await client.invoke(body)).status).toBe(500);
    expect(probe.runs).toBe(2);
  });

  it('expires stored answers after idempotencyTtlMs', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const timed = asyncGateway({ now: () => now, idempotencyTtlMs: 60_000 });
    const timedClient = createTestClient(timed, { token: TOKEN });
    const body = invokeBody('count-calls', { n: 1 }, { idempotencyKey: 'key-ttl' });
    await timedClient.invoke(body);
    now += 59_000;
    await timedClient.invoke(body);
    expect(probe.runs).toBe(1);
    now += 2_000;
    await timedClient.invoke(body);
    expect(probe.runs).toBe(2);
    await timed.close();
  });
});

describe('idempotencyKey on async actions', () => {
  it('gives a retry the same job, and a different request a 422', async () => {
    const body = invokeBody('generate-report', { topic: 'q3' }, { idempotencyKey: 'job-key' });
    const first = await client.invoke(body);
    const retry = await client.invoke({ ...body, invocationId: 'retry-1' });
    expect((retry.body as { job: { jobId: string } }).job.jobId).toBe(
      (first.body as { job: { jobId: string } }).job.jobId,
    );
    await gateway.idle();
    expect(probe.runs).toBe(1);
    const different = await client.invoke(
      invokeBody('generate-report', { topic: 'q4' }, { idempotencyKey: 'job-key' }),
    );
    expect(different.status).toBe(422);
    expect(different.body).toMatchObject({ error: { code: 'idempotency_mismatch' } });
  });
});

describe('idempotencyKey and crashes', () => {
  it('replays the 500 of a crashed non-idempotent action instead of running it again', async () => {
    const { defineAction } = await import('../actions/define-action.ts');
    let runs = 0;
    const charge = defineAction({
      id: 'charge-card',
      sideEffectLevel: 'destructive',
      input: v.object({}),
      run: () => {
        runs += 1;
        throw new Error('gateway timeout after the charge went through');
      },
    });
    const charging = asyncGateway({ actions: [charge] });
    const chargingClient = createTestClient(charging, { token: TOKEN });
    const body = invokeBody('charge-card', {}, { idempotencyKey: 'charge-1' });
    const first = await chargingClient.invoke(body);
    const retry = await chargingClient.invoke(body);
    expect(first.status).toBe(500);
    expect(first.body).toMatchObject({ error: { code: 'internal_error', retryable: false } });
    expect(retry.status).toBe(500);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(runs).toBe(1);
    await charging.close();
  });
});
