import { randomUUID } from 'node:crypto';
import {
  type CallbackDeliveryFailure,
  CallbackDispatcher,
  type CallbackDispatcherOptions,
} from '@svc/gateway-kit/callbacks';
import { type CallbackReceiver, startReceiver } from '@svc/gateway-processes';
import { createClient } from 'redis';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisCallbackOutbox,
  RedisJobStore,
  type RedisJobStoreOptions,
} from '../src/index.ts';
import { eventually } from './gateway-processes.ts';
import { type RedisClock, redisClock } from './redis-clock.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

// Two "instances" (each a RedisJobStore and a CallbackDispatcher) sharing one Redis prefix.
const SECRET = `whsec_${Buffer.from('outbox-test-secret-0123456789').toString('base64')}`;
const quiet = (): void => {};

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
/** The outbox's due times, claims and retention go by Redis' clock (TIME in its scripts). */
let clock: RedisClock;
let receiver: CallbackReceiver;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  await raw.connect();
  clock = redisClock(raw);
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  await receiver?.close();
});
afterAll(async () => {
  raw.destroy();
  await redis.stop();
});

function instance(prefix: string, options: CallbackDispatcherOptions = {}, leaseMs = 1_000) {
  const store = new RedisJobStore({
    url: redis.url,
    prefix,
    leaseMs,
    callbackPollIntervalMs: 100,
    sweepIntervalMs: 0,
    commandTimeoutMs: 500,
    onError: quiet,
  });
  const dispatcher = new CallbackDispatcher({
    signingSecret: SECRET,
    urlPolicy: { allowInsecureLoopback: true },
    attemptTimeoutMs: 5_000,
    baseDelayMs: 50,
    maxDelayMs: 100,
    outbox: store.callbackOutbox,
    ...options,
  });
  cleanup.push(async () => {
    await dispatcher.close();
    await store.close();
  });
  return { store, dispatcher };
}

const delivery = (url: string, webhookId = `job_${randomUUID()}_completed`) => ({
  url,
  body: { job: { jobId: webhookId, status: 'completed' } },
  webhookId,
  authorization: 'Bearer receiver-token',
});

describe('callbacks through the Redis outbox', () => {
  it('a failed first attempt is retried from the outbox with the same webhook-id, each attempt signed afresh', async () => {
    receiver = await startReceiver(503);
    const prefix = `cb:${randomUUID()}:`;
    const a = instance(prefix);
    const sent = delivery(receiver.url);
    const first = await a.dispatcher.dispatch(sent);
    expect(first).toEqual({ delivered: false, attempts: 1, reason: 'queued' });
    expect(await a.store.callbackOutbox.size()).toBe(1);

    receiver.answer(200);
    await eventually(
      async () => (receiver.deliveredIds().length > 0 ? true : undefined),
      5_000,
      'the retry',
    );
    await eventually(
      async () => ((await a.store.callbackOutbox.size()) === 0 ? true : undefined),
      2_000,
      'the entry to be completed',
    );
    const webhook = new Webhook(SECRET);
    for (const request of receiver.received) {
      expect(request.webhookId).toBe(sent.webhookId);
      const headers = {
        'webhook-id': request.webhookId,
        'webhook-timestamp': request.timestamp,
        'webhook-signature': request.signature,
      };
      expect(webhook.verify(request.body, headers)).toEqual(sent.body);
    }
    expect(receiver.deliveredIds()).toEqual([sent.webhookId]);
  });

  it('another instance delivers an entry whose claim lapsed (its instance died mid-attempt)', async () => {
    receiver = await startReceiver(200);
    const prefix = `cb:${randomUUID()}:`;
    const a = instance(prefix);
    // "A" enqueues (claimed) and dies before attempting: nothing completes or reschedules it.
    const claimed = await a.store.callbackOutbox.enqueue({
      webhookId: 'job_lost_completed',
      url: receiver.url,
      payload: '{"job":{"jobId":"lost"}}',
    });
    expect(claimed).toMatchObject({ claim: expect.any(String) });
    const enqueuedAt = Date.now();

    instance(prefix); // "B" polls every 100 ms
    await eventually(
      async () => (receiver.deliveredIds().length > 0 ? true : undefined),
      1_000 + 100 + 5_000,
      'the takeover',
    );
    // Not before the 1 s lease lapsed, and within lease + poll interval + 5 s (issue 11's bound).
    const delay = receiver.received[0]!.at - enqueuedAt;
    expect(delay).toBeGreaterThanOrEqual(900);
    expect(delay).toBeLessThan(1_000 + 100 + 5_000);
    expect(receiver.received.map((r) => [r.webhookId, r.body])).toEqual([
      ['job_lost_completed', '{"job":{"jobId":"lost"}}'],
    ]);
  });

  it('gives up after maxAttempts, reports it once, and leaves nothing in Redis', async () => {
    receiver = await startReceiver(500);
    const prefix = `cb:${randomUUID()}:`;
    const failures: unknown[] = [];
    const a = instance(prefix, { maxAttempts: 3, onDeliveryFailed: (f) => failures.push(f) });
    const sent = delivery(receiver.url);
    await a.dispatcher.dispatch(sent);
    await eventually(async () => (failures.length > 0 ? true : undefined), 5_000, 'the failure');
    expect(failures).toEqual([
      {
        webhookId: sent.webhookId,
        target: new URL(receiver.url).origin,
        result: { delivered: false, attempts: 3, reason: 'exhausted', lastStatus: 500 },
      },
    ]);
    expect(receiver.received).toHaveLength(3);
    expect(await a.store.callbackOutbox.size()).toBe(0);
  });

  it('a callback already pending is not queued twice', async () => {
    receiver = await startReceiver('hang');
    const prefix = `cb:${randomUUID()}:`;
    const a = instance(prefix, {}, 30_000);
    const sent = delivery(receiver.url);
    void a.dispatcher.dispatch(sent);
    await eventually(async () => (receiver.received.length > 0 ? true : undefined), 5_000, 'try');
    expect(await a.dispatcher.dispatch(sent)).toEqual({
      delivered: false,
      attempts: 0,
      reason: 'queued',
    });
    expect(await a.store.callbackOutbox.size()).toBe(1);
  });

  it('refused URLs end at once without touching the outbox', async () => {
    receiver = await startReceiver(200);
    const a = instance(`cb:${randomUUID()}:`);
    const result = await a.dispatcher.dispatch(delivery('http://10.0.0.1/hook'));
    expect(result).toMatchObject({ delivered: false, attempts: 0, reason: 'refused_url' });
    expect(await a.store.callbackOutbox.size()).toBe(0);
  });

  it('the outbox holds at most maxPendingCallbacks entries; beyond it a callback overflows', async () => {
    receiver = await startReceiver('hang');
    const prefix = `cb:${randomUUID()}:`;
    const store = new RedisJobStore({
      url: redis.url,
      prefix,
      // A store-wide bound, split into per-bucket shares: exact with one bucket.
      buckets: 1,
      maxPendingCallbacks: 2,
      sweepIntervalMs: 0,
      onError: quiet,
    });
    cleanup.push(() => store.close());
    const entry = (n: number) => ({ webhookId: `w${n}`, url: receiver.url, payload: '{}' });
    expect(await store.callbackOutbox.enqueue(entry(1))).not.toBe('full');
    expect(await store.callbackOutbox.enqueue(entry(2))).not.toBe('full');
    expect(await store.callbackOutbox.enqueue(entry(3))).toBe('full');
  });

  it('while Redis is unreachable, a callback is delivered in process instead', async () => {
    receiver = await startReceiver(200);
    const own = await startRedis();
    cleanup.push(() => own.stop());
    const store = new RedisJobStore({
      url: own.url,
      sweepIntervalMs: 0,
      commandTimeoutMs: 300,
      connectTimeoutMs: 300,
      onError: quiet,
    });
    const dispatcher = new CallbackDispatcher({
      urlPolicy: { allowInsecureLoopback: true },
      outbox: store.callbackOutbox,
    });
    cleanup.push(async () => {
      await dispatcher.close();
      await store.close();
    });
    await own.kill();
    const sent = delivery(receiver.url);
    expect(await dispatcher.dispatch(sent)).toEqual({ delivered: true, attempts: 1, status: 200 });
    expect(receiver.deliveredIds()).toEqual([sent.webhookId]);
  });
});

describe('the Redis outbox per principal', () => {
  function store(prefix: string, options: Partial<RedisJobStoreOptions> = {}) {
    const created = new RedisJobStore({
      url: redis.url,
      prefix,
      leaseMs: 30_000,
      sweepIntervalMs: 0,
      onError: quiet,
      ...options,
    });
    cleanup.push(() => created.close());
    return created;
  }
  const entry = (principal: string, n: number, payload = '{}') => ({
    webhookId: `${principal}-${n}`,
    url: 'https://hooks.example.com/jobs',
    payload,
    principal,
  });
  /** Enqueues `count` entries of `principal` and makes them due now (released, no attempt). */
  async function due(outbox: RedisCallbackOutbox, principal: string, count: number) {
    for (let n = 0; n < count; n++) {
      const stored = await outbox.enqueue(entry(principal, n));
      if (typeof stored !== 'object') throw new Error(`not stored: ${stored}`);
      await outbox.reschedule(`${principal}-${n}`, stored.claim, 0, 0);
    }
  }

  it('each principal has its own share of items and bytes: one principal at its share does not make another overflow', async () => {
    const { callbackOutbox: outbox } = store(`cb:${randomUUID()}:`, {
      // 100 per bucket: the store-wide total is split into per-bucket shares (64 by default).
      maxPendingCallbacks: 6_400,
      maxPendingCallbacksPerPrincipal: 3,
      maxPendingCallbackBytesPerPrincipal: 200,
    });
    for (let n = 0; n < 3; n++) expect(await outbox.enqueue(entry('a', n))).toHaveProperty('claim');
    expect(await outbox.enqueue(entry('a', 3))).toBe('full');
    expect(await outbox.enqueue(entry('b', 0))).toHaveProperty('claim');
    // b's bytes: URL (30) + payload; 150 more would pass 200.
    expect(await outbox.enqueue(entry('b', 1, 'x'.repeat(150)))).toBe('full');
    expect(await outbox.sizeOf('a')).toBe(3);
    expect(await outbox.sizeOf('b')).toBe(1);
    expect(await outbox.size()).toBe(4);
  });

  it('claims fairly: a principal with a backlog of due entries does not fill the batch while another has due entries', async () => {
    const { callbackOutbox: outbox } = store(`cb:${randomUUID()}:`);
    await due(outbox, 'a', 100);
    await due(outbox, 'b', 3);
    const first = await outbox.claimDue(4);
    expect(first.map((e) => e.principal)).toEqual(['a', 'b', 'a', 'b']);
    const second = await outbox.claimDue(4);
    expect(second.map((e) => e.principal).sort()).toEqual(['a', 'a', 'a', 'b']);
    // The claimed entries are held (not due again within the lease).
    const rest = await outbox.claimDue(200);
    expect(rest).toHaveLength(100 - 5);
    expect(rest.every((e) => e.principal === 'a')).toBe(true);
  });

  it('round-robins principals least recently served first, however many there are', async () => {
    const { callbackOutbox: outbox } = store(`cb:${randomUUID()}:`);
    for (const p of ['p1', 'p2', 'p3', 'p4']) await due(outbox, p, 3);
    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      served.push(...(await outbox.claimDue(2)).map((e) => e.principal ?? ''));
      // Polls are apart in time: principals served within one millisecond of Redis' clock are
      // equally recent, and then go by name. So the next claim waits for Redis' next millisecond.
      await clock.elapse(1);
    }
    // Each claim of 2 serves the two principals served least recently.
    expect(served.slice(0, 4).sort()).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(served.slice(4, 8).sort()).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  it('removes an entry past its retention and hands it back once as expired, freeing its share', async () => {
    const retentionMs = 200;
    const { callbackOutbox: outbox } = store(`cb:${randomUUID()}:`, {
      retentionMs,
      maxPendingCallbacksPerPrincipal: 1,
    });
    await due(outbox, 'a', 1);
    expect(await outbox.enqueue(entry('a', 1))).toBe('full');
    // Past the entry's retention on Redis' clock (counted from after it was enqueued), with margin.
    await clock.elapse(retentionMs + 50);
    const claimed = await outbox.claimDue(10);
    expect(claimed).toMatchObject([{ webhookId: 'a-0', principal: 'a', expired: true }]);
    expect(await outbox.claimDue(10)).toEqual([]);
    expect(await outbox.size()).toBe(0);
    expect(await outbox.enqueue(entry('a', 1))).toHaveProperty('claim');
  });

  it('a principal whose callbacks fail does not delay another’s: B is delivered at once while A’s backlog waits', async () => {
    receiver = await startReceiver(200);
    const bad = await startReceiver(500);
    cleanup.push(() => bad.close());
    const prefix = `cb:${randomUUID()}:`;
    const failures: CallbackDeliveryFailure[] = [];
    const a = instance(prefix, {
      maxPendingPerPrincipal: 1_000,
      onDeliveryFailed: (failure) => failures.push(failure),
    });
    const flood = Array.from({ length: 300 }, (_, n) =>
      a.dispatcher.dispatch({ ...delivery(bad.url, `a-${n}`), principal: 'a' }),
    );
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        a.dispatcher.dispatch({ ...delivery(receiver.url, `b-${n}`), principal: 'b' }),
      ),
    );
    // 16 go at once (one destination's slots); the others from the outbox at the next polls.
    await eventually(
      async () => (receiver.deliveredIds().length === 20 ? true : undefined),
      5_000,
      'B’s 20 callbacks',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    await Promise.all(flood);
    expect(failures.filter((f) => f.principal === 'b')).toEqual([]);
  });
});
