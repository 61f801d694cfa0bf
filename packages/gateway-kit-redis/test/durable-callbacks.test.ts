import { randomUUID } from 'node:crypto';
import { type CallbackReceiver, startReceiver } from '@svc/gateway-processes';
import { createClient } from 'redis';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeyLayout } from '../src/key-layout.ts';
import {
  call,
  eventually,
  type GatewayProcess,
  invoke,
  startGateway,
  stopAllGateways,
} from './gateway-processes.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

// Gateway processes with callbacks on (signed, loopback receiver allowed) sharing one Redis.
const SECRET = `whsec_${Buffer.from('durable-callbacks-test-secret').toString('base64')}`;

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
let receiver: CallbackReceiver | undefined;

beforeAll(async () => {
  // AOF with fsync on every write: the outage test restarts Redis with its data.
  redis = await startRedis({ persistent: true });
  raw = createClient({ url: redis.url, disableOfflineQueue: true });
  raw.on('error', () => {});
  await raw.connect();
});
afterEach(async () => {
  await stopAllGateways();
  await receiver?.close();
});
afterAll(async () => {
  raw.destroy();
  await redis.stop();
});

async function pair(settings: Record<string, string> = {}) {
  const prefix = `dc:${randomUUID()}:`;
  const env = { REDIS_URL: redis.url, PREFIX: prefix, CALLBACK_SECRET: SECRET, ...settings };
  const [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
  return { prefix, a: a!, b: b! };
}

function withCallback(url: string) {
  return { callbacks: { jobResultUrl: url, authorization: 'Bearer receiver-token' } };
}

async function status(gateway: GatewayProcess, jobId: string): Promise<string> {
  return (await call(gateway, 'GET', `/v1/jobs/${jobId}`)).body.status;
}

/**
 * Where the fixture's stores keep a prefix's shared keys: one bucket, the default on one node
 * (`prefix{b0.0}:`, not `prefix` itself).
 */
const shared = (prefix: string): string => new KeyLayout(prefix, 1).base(0);

/** Resolves once the shared outbox is empty: no delivery can follow any more. */
function outboxDrained(prefix: string, timeoutMs: number): Promise<true> {
  return eventually(
    async () => ((await raw.zCard(`${shared(prefix)}cb:all`)) === 0 ? true : undefined),
    timeoutMs,
    'the callback outbox to drain',
  );
}

describe('durable job-result callbacks', () => {
  it('SIGKILL of the instance before its callback was delivered: the other delivers it, same webhook-id, within leaseMs + poll + 5 s', async () => {
    const leaseMs = 2_000;
    const pollMs = 250;
    receiver = await startReceiver('hang'); // A's attempt gets no answer
    const { prefix, a, b } = await pair({ LEASE_MS: String(leaseMs), POLL_MS: String(pollMs) });
    const accepted = await invoke(a, 'quick-job', {}, withCallback(receiver.url));
    const jobId: string = accepted.body.job.jobId;
    const received = receiver.received;
    await eventually(async () => (received.length > 0 ? true : undefined), 5_000, 'A’s attempt');
    const original = received[0]!.webhookId;
    expect(original).toBe(`job_${jobId}_completed`);

    await a.stop('SIGKILL');
    const killedAt = Date.now();
    receiver.answer(200);
    await eventually(
      async () => (receiver?.deliveredIds().includes(original) ? true : undefined),
      leaseMs + pollMs + 5_000,
      'B to deliver the callback',
    );
    const delivered = received.find((r) => r.answered === 200)!;
    expect(delivered.at - killedAt).toBeLessThan(leaseMs + pollMs + 5_000);
    const body = new Webhook(SECRET).verify(delivered.body, {
      'webhook-id': delivered.webhookId,
      'webhook-timestamp': delivered.timestamp,
      'webhook-signature': delivered.signature,
    });
    expect(body).toMatchObject({ job: { jobId, status: 'completed' } });
    expect(await status(b, jobId)).toBe('completed');
    await outboxDrained(prefix, 5_000);
    expect(receiver.deliveredIds()).toEqual([original]);
  });

  it('SIGKILL of the instance between the job’s terminal write and queueing its callback: the other sends it, once, within leaseMs + sweep + 5 s', async () => {
    const leaseMs = 1_000;
    const sweepMs = 200;
    receiver = await startReceiver(200);
    const prefix = `dc:${randomUUID()}:`;
    const env = {
      REDIS_URL: redis.url,
      PREFIX: prefix,
      CALLBACK_SECRET: SECRET,
      LEASE_MS: String(leaseMs),
      SWEEP_MS: String(sweepMs),
      POLL_MS: '250',
    };
    const [a, b] = await Promise.all([
      startGateway({ ...env, DIE_AFTER_FINISH: '1' }),
      startGateway(env),
    ]);
    const accepted = await invoke(a!, 'slow-job', { ms: 300 }, withCallback(receiver.url));
    const jobId: string = accepted.body.job.jobId;
    await eventually(async () => (a!.alive() ? undefined : true), 5_000, 'A to die');
    const diedAt = Date.now();
    expect(await status(b!, jobId)).toBe('completed');
    expect(await raw.zCard(`${shared(prefix)}cb:all`)).toBe(0); // A queued nothing

    const webhookId = `job_${jobId}_completed`;
    await eventually(
      async () => (receiver?.deliveredIds().includes(webhookId) ? true : undefined),
      leaseMs + sweepMs + 5_000,
      'B to send the callback A never queued',
    );
    const delivered = receiver.received.find((r) => r.webhookId === webhookId)!;
    expect(delivered.at - diedAt).toBeLessThan(leaseMs + sweepMs + 5_000);
    const body = new Webhook(SECRET).verify(delivered.body, {
      'webhook-id': delivered.webhookId,
      'webhook-timestamp': delivered.timestamp,
      'webhook-signature': delivered.signature,
    });
    expect(body).toMatchObject({ job: { jobId, status: 'completed', outputText: 'slept 300' } });
    // Handed over: the job left the unannounced set and the outbox, so no instance reports it
    // again.
    const unannounced = `${shared(prefix)}unannounced`;
    await eventually(
      async () => ((await raw.zCard(unannounced)) === 0 ? true : undefined),
      5_000,
      'the job to leave the unannounced set',
    );
    await outboxDrained(prefix, 5_000);
    // A second report would come from a sweep after a lapsed report claim (leaseMs): nothing
    // signals that none comes, so this waits a fixed window of a lease and two sweeps.
    await new Promise((resolve) => setTimeout(resolve, leaseMs + 2 * sweepMs));
    expect(receiver.deliveredIds()).toEqual([webhookId]);
    expect(await raw.zCard(unannounced)).toBe(0);
  });

  it('Redis killed for 3 s while 20 jobs finish: all 20 complete after it returns, each with one job-result callback', async () => {
    receiver = await startReceiver(200);
    const { prefix, a, b } = await pair();
    const jobIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const accepted = await invoke(
        i % 2 ? b : a,
        'slow-job',
        { ms: 1_500 },
        withCallback(receiver.url),
      );
      expect(accepted.body.status).toBe('accepted');
      jobIds.push(accepted.body.job.jobId);
    }
    for (const jobId of jobIds) expect(await status(a, jobId)).toBe('running');

    await redis.kill(); // the handlers finish during the outage
    // The outage lasts 3 s (the scenario); a read every 250 ms meanwhile answers 503.
    const outageEnds = Date.now() + 3_000;
    while (Date.now() < outageEnds) {
      expect((await call(b, 'GET', `/v1/jobs/${jobIds[0]}`)).status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await redis.start();

    for (const jobId of jobIds) {
      await eventually(
        async () => ((await status(b, jobId)) === 'completed' ? true : undefined),
        15_000,
        `job ${jobId} to complete`,
      );
    }
    await eventually(
      async () => (receiver!.deliveredIds().length >= 20 ? true : undefined),
      15_000,
      'the 20 callbacks',
    );
    await outboxDrained(prefix, 5_000);
    const expected = jobIds.map((jobId) => `job_${jobId}_completed`).sort();
    expect(receiver.deliveredIds().sort()).toEqual(expected);
  }, 60_000);
});
