import { describe, expect, it, vi } from 'vitest';
import { asyncGateway, TOKEN } from '../../test/async-fixture.ts';
import type {
  CallbackOutbox,
  ClaimedOutboxEntry,
  OutboxEntry,
} from '../runtime/callback-outbox.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { CallbackDispatcher } from './callback-dispatcher.ts';

type Stored = {
  entry: Omit<OutboxEntry, 'attempts'>;
  attempts: number;
  claim?: string | undefined;
};

/** A CallbackOutbox in a Map, for the dispatcher's side of the protocol (Redis has the real one). */
class MapOutbox implements CallbackOutbox {
  constructor(readonly leaseMs = 60_000) {}
  readonly pollIntervalMs = 60_000; // only the poll at start-up runs in these tests
  readonly stored = new Map<string, Stored>();
  readonly log: string[] = [];
  #claims = 0;

  async enqueue(entry: Omit<OutboxEntry, 'attempts'>) {
    if (this.stored.has(entry.webhookId)) return 'exists' as const;
    const claim = `c${++this.#claims}`;
    this.stored.set(entry.webhookId, { entry, attempts: 0, claim });
    this.log.push(`enqueue ${entry.webhookId}`);
    return { claim };
  }

  async claimDue(limit: number): Promise<ClaimedOutboxEntry[]> {
    this.log.push(`claimDue ${limit}`);
    const due = [...this.stored.values()].filter((s) => s.claim === undefined).slice(0, limit);
    return due.map((s) => {
      s.claim = `c${++this.#claims}`;
      return { ...s.entry, attempts: s.attempts, claim: s.claim };
    });
  }

  async complete(webhookId: string, claim: string) {
    if (this.stored.get(webhookId)?.claim !== claim) return;
    this.stored.delete(webhookId);
    this.log.push(`complete ${webhookId}`);
  }

  readonly delays: number[] = [];

  async reschedule(webhookId: string, claim: string, attempts: number, delayMs: number) {
    const s = this.stored.get(webhookId);
    if (s?.claim !== claim) return;
    this.delays.push(delayMs);
    s.attempts = attempts;
    s.claim = undefined;
    this.log.push(`reschedule ${webhookId} ${attempts}`);
  }
}

const JOB_URL = 'https://hooks.example.com/jobs';

function storeWithOutbox(outbox: CallbackOutbox) {
  return Object.assign(new MemoryJobStore(), { callbackOutbox: outbox });
}

describe('createGateway with a job store that has a callback outbox', () => {
  it('queues the job-result callback before its first attempt and completes it once delivered', async () => {
    const outbox = new MapOutbox();
    const fetch = vi.fn(async () => new Response(null, { status: 204 }));
    const gateway = asyncGateway({ jobStore: storeWithOutbox(outbox), callbacks: { fetch } });
    const accepted = await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('generate-report', { topic: 'q3' }, { callbacks: { jobResultUrl: JOB_URL } }),
    );
    const jobId = (accepted.body as { job: { jobId: string } }).job.jobId;
    await gateway.idle();
    const webhookId = `job_${jobId}_completed`;
    expect(outbox.log.filter((line) => !line.startsWith('claimDue'))).toEqual([
      `enqueue ${webhookId}`,
      `complete ${webhookId}`,
    ]);
    expect(fetch).toHaveBeenCalledTimes(1);
    await gateway.close();
  });

  it('a retryable failure is left to the outbox (queued), not retried in process', async () => {
    const outbox = new MapOutbox();
    const fetch = vi.fn(async () => new Response(null, { status: 503 }));
    const failed = vi.fn();
    const gateway = asyncGateway({
      jobStore: storeWithOutbox(outbox),
      callbacks: { fetch, onDeliveryFailed: failed },
    });
    await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('generate-report', { topic: 'q3' }, { callbacks: { jobResultUrl: JOB_URL } }),
    );
    await gateway.idle();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(failed).not.toHaveBeenCalled();
    expect([...outbox.stored.values()]).toMatchObject([{ attempts: 1 }]);
    await gateway.close();
  });

  it('the next attempt waits what the receiver’s Retry-After asks (up to maxDelayMs), else the backoff', async () => {
    const outbox = new MapOutbox();
    const fetch = vi.fn(
      async () => new Response(null, { status: 429, headers: { 'retry-after': '7' } }),
    );
    const dispatcher = new CallbackDispatcher({ outbox, fetch, random: () => 0.5 });
    const sent = { url: JOB_URL, body: {}, webhookId: 'w-retry-after' };
    expect(await dispatcher.dispatch(sent)).toEqual({
      delivered: false,
      attempts: 1,
      reason: 'queued',
    });
    fetch.mockImplementation(async () => new Response(null, { status: 503 }));
    expect(await dispatcher.dispatch({ ...sent, webhookId: 'w-backoff' })).toMatchObject({
      reason: 'queued',
    });
    // 7 s from Retry-After; the backoff draw for retry 1 is 0.5 × 1 000 ms.
    expect(outbox.delays).toEqual([7_000, 500]);
    await dispatcher.close();
  });

  it('callbacks.outbox: undefined keeps delivery in process', async () => {
    const outbox = new MapOutbox();
    const fetch = vi.fn(async () => new Response(null, { status: 204 }));
    const gateway = asyncGateway({
      jobStore: storeWithOutbox(outbox),
      callbacks: { fetch, outbox: undefined },
    });
    await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('generate-report', { topic: 'q3' }, { callbacks: { jobResultUrl: JOB_URL } }),
    );
    await gateway.idle();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(outbox.log).toEqual([]);
    await gateway.close();
  });
});

describe('CallbackDispatcher polling an outbox', () => {
  it('sends a claimed entry byte for byte, through wrapFetch like any delivery', async () => {
    const outbox = new MapOutbox();
    const payload = '{"job":{"jobId":"job_1","status":"completed"}}';
    const entry = { webhookId: 'job_job_1_completed', url: JOB_URL, payload, authorization: 'B' };
    outbox.stored.set(entry.webhookId, { entry, attempts: 2 });
    const bodies: string[] = [];
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      bodies.push(String(init?.body));
      return new Response(null, { status: 200 });
    });
    const wrapped: unknown[] = [];
    const dispatcher = new CallbackDispatcher({
      outbox,
      fetch,
      wrapFetch: (inner, delivery) => {
        wrapped.push(delivery);
        return inner;
      },
    });
    await vi.waitFor(() => expect(outbox.stored.size).toBe(0));
    expect(bodies).toEqual([payload]);
    expect(wrapped).toEqual([
      { url: JOB_URL, body: JSON.parse(payload), webhookId: entry.webhookId, authorization: 'B' },
    ]);
    await dispatcher.close();
  });

  it('claims no more entries than it has free attempt slots', async () => {
    const outbox = new MapOutbox();
    for (let i = 0; i < 5; i++) {
      const webhookId = `w${i}`;
      outbox.stored.set(webhookId, {
        entry: { webhookId, url: JOB_URL, payload: '{}' },
        attempts: 0,
      });
    }
    let open = 0;
    const fetch = vi.fn(() => {
      open += 1;
      return new Promise<Response>(() => {}); // never answers
    });
    const dispatcher = new CallbackDispatcher({ outbox, fetch, maxConcurrentAttempts: 2 });
    await vi.waitFor(() => expect(open).toBe(2));
    expect(outbox.log).toEqual(['claimDue 2']);
    expect(dispatcher.activeAttempts).toBe(2);
    await dispatcher.close();
    // Closing hands the claimed entries back at once (attempts unchanged).
    expect(outbox.log.slice(1).sort()).toEqual(['reschedule w0 0', 'reschedule w1 0']);
  });
});

describe('CallbackDispatcher with an outbox: principals, circuits, lease', () => {
  it('stores the principal with the entry, and reports its failures with it', async () => {
    const outbox = new MapOutbox();
    const failed = vi.fn();
    const fetch = vi.fn(async () => new Response(null, { status: 400 }));
    const dispatcher = new CallbackDispatcher({ outbox, fetch, onDeliveryFailed: failed });
    const sent = { url: JOB_URL, body: {}, webhookId: 'w-p1', principal: 'acme' };
    expect(await dispatcher.dispatch(sent)).toMatchObject({ reason: 'client_error' });
    expect(outbox.log).toContain('enqueue w-p1');
    expect(failed).toHaveBeenCalledWith(
      expect.objectContaining({
        webhookId: 'w-p1',
        principal: 'acme',
        target: 'https://hooks.example.com',
      }),
    );
    await dispatcher.close();
  });

  it('a wait on an open circuit is not an attempt: the entry goes back to the outbox, due when the circuit may let one through', async () => {
    const outbox = new MapOutbox();
    const fetch = vi.fn(async () => {
      throw new TypeError('fetch failed');
    });
    const dispatcher = new CallbackDispatcher({
      outbox,
      fetch,
      circuitFailureThreshold: 1,
      circuitCooldownMs: 30_000,
      random: () => 0,
    });
    const first = { url: JOB_URL, body: {}, webhookId: 'w-c1', principal: 'a' };
    expect(await dispatcher.dispatch(first)).toMatchObject({ reason: 'queued', attempts: 1 });
    // The circuit of (a, hooks.example.com) is open now: no request, no attempt counted.
    expect(await dispatcher.dispatch({ ...first, webhookId: 'w-c2' })).toEqual({
      delivered: false,
      attempts: 0,
      reason: 'queued',
    });
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(outbox.stored.get('w-c2')?.attempts).toBe(0);
    expect(outbox.delays[1]).toBeGreaterThan(29_000);
    expect(outbox.delays[1]).toBeLessThanOrEqual(30_000);
    // Another principal's callback to the same origin goes at once.
    expect(
      await dispatcher.dispatch({ ...first, webhookId: 'w-c3', principal: 'b' }),
    ).toMatchObject({
      attempts: 1,
    });
    expect(fetch).toHaveBeenCalledTimes(2);
    await dispatcher.close();
  });

  it('reports an entry the store expired as `expired`, without sending it', async () => {
    const outbox = new MapOutbox();
    const failed = vi.fn();
    vi.spyOn(outbox, 'claimDue').mockResolvedValueOnce([
      {
        webhookId: 'w-old',
        url: JOB_URL,
        payload: '{}',
        attempts: 3,
        claim: 'c0',
        principal: 'a',
        expired: true,
      },
    ]);
    const fetch = vi.fn();
    const dispatcher = new CallbackDispatcher({ outbox, fetch, onDeliveryFailed: failed });
    await vi.waitFor(() => expect(failed).toHaveBeenCalledTimes(1));
    expect(failed).toHaveBeenCalledWith({
      webhookId: 'w-old',
      target: 'https://hooks.example.com',
      principal: 'a',
      result: { delivered: false, attempts: 3, reason: 'expired' },
    });
    expect(fetch).not.toHaveBeenCalled();
    await dispatcher.close();
  });

  it('keeps an outbox attempt within half the lease, and createGateway warns when attemptTimeoutMs is longer', async () => {
    const outbox = new MapOutbox(400);
    const fetch = vi.fn(
      (_url: string | URL | Request, init?: RequestInit) =>
        new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    );
    const warn = vi.fn();
    const gateway = asyncGateway({
      jobStore: storeWithOutbox(outbox),
      callbacks: { fetch, attemptTimeoutMs: 10_000, urlPolicy: {} },
      logger: { error: () => undefined, warn },
    });
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('attemptTimeoutMs is longer than half the callback outbox lease'),
      { attemptTimeoutMs: 10_000, leaseMs: 400, outboxAttemptTimeoutMs: 200 },
    );
    const started = Date.now();
    await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('generate-report', { topic: 'q3' }, { callbacks: { jobResultUrl: JOB_URL } }),
    );
    await vi.waitFor(() => expect([...outbox.stored.values()]).toMatchObject([{ attempts: 1 }]));
    // The attempt timed out after 200 ms (half the lease), not 10 s.
    expect(Date.now() - started).toBeLessThan(2_000);
    await gateway.close();
  });
});

describe('CallbackDispatcher handedOver', () => {
  it('is called once the callback is in the outbox, before its first attempt ends', async () => {
    const outbox = new MapOutbox();
    let release: ((response: Response) => void) | undefined;
    const fetch = vi.fn(() => new Promise<Response>((resolve) => (release = resolve)));
    const dispatcher = new CallbackDispatcher({ outbox, fetch });
    const handedOver = vi.fn(() => outbox.log.push('handedOver'));
    const result = dispatcher.dispatch({ url: JOB_URL, body: {}, webhookId: 'w-h1' }, handedOver);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(outbox.log).toContain('enqueue w-h1');
    expect(outbox.log.indexOf('handedOver')).toBeGreaterThan(outbox.log.indexOf('enqueue w-h1'));
    release?.(new Response(null, { status: 204 }));
    expect(await result).toMatchObject({ delivered: true });
    expect(handedOver).toHaveBeenCalledTimes(1);
    await dispatcher.close();
  });

  it('is called when an in-process delivery starts, not after its retries', async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 503 }));
    const dispatcher = new CallbackDispatcher({ fetch, maxAttempts: 3, baseDelayMs: 1 });
    const handedOver = vi.fn(() => expect(fetch).not.toHaveBeenCalled());
    const result = await dispatcher.dispatch(
      { url: JOB_URL, body: {}, webhookId: 'w-h2' },
      handedOver,
    );
    expect(result).toMatchObject({ delivered: false, attempts: 3 });
    expect(handedOver).toHaveBeenCalledTimes(1);
  });

  it('is not called for a delivery that ends because the dispatcher closed', async () => {
    const outbox = new MapOutbox();
    const dispatcher = new CallbackDispatcher({ outbox, fetch: vi.fn() });
    await dispatcher.close();
    const handedOver = vi.fn();
    const result = await dispatcher.dispatch(
      { url: JOB_URL, body: {}, webhookId: 'w-h3' },
      handedOver,
    );
    expect(result).toMatchObject({ delivered: false, reason: 'aborted' });
    expect(handedOver).not.toHaveBeenCalled();
    expect(outbox.stored.size).toBe(0);
  });
});
