import { randomUUID } from 'node:crypto';
import { CallbackDispatcher, type CallbackDispatcherOptions } from '@svc/gateway-kit/callbacks';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisJobStore } from '../src/index.ts';
import { type CallbackReceiver, startReceiver } from './callback-receiver.ts';
import { eventually } from './gateway-processes.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

// Two "instances" (each a RedisJobStore and a CallbackDispatcher) sharing one Redis prefix.
const SECRET = `whsec_${Buffer.from('outbox-test-secret-0123456789').toString('base64')}`;
const quiet = (): void => {};

let redis: TestRedis;
let receiver: CallbackReceiver;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  await receiver?.close();
});
afterAll(() => redis.stop());

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
