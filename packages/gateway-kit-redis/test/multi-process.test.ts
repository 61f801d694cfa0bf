import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  eventually,
  type GatewayProcess,
  invoke,
  startGateway,
  stopAllGateways,
} from './gateway-processes.ts';
import { startRedis, type TestRedis } from './redis-server.ts';
import { cancelChannels, waitForSubscribers } from './subscribers.ts';

// Two gateway processes (A and B) on different ports sharing one Redis, as behind a load balancer.
let redis: TestRedis;
let raw: ReturnType<typeof createClient>;

beforeAll(async () => {
  // AOF with fsync on every write, so the restart test can also restart Redis itself.
  redis = await startRedis({ persistent: true });
  raw = createClient({ url: redis.url, disableOfflineQueue: true });
  raw.on('error', () => {});
  await raw.connect();
});
afterEach(() => stopAllGateways());
afterAll(async () => {
  raw.destroy();
  await redis.stop();
});

async function pair(settings: Record<string, string> = {}) {
  const prefix = `mp:${randomUUID()}:`;
  const env = { REDIS_URL: redis.url, PREFIX: prefix, ...settings };
  const [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
  return { prefix, env, a: a!, b: b! };
}

async function acceptWaitingJob(gateway: GatewayProcess, prefix: string): Promise<string> {
  const accepted = await invoke(gateway, 'wait-for-cancel');
  expect(accepted.status).toBe(200);
  expect(accepted.body).toMatchObject({ status: 'accepted' });
  const jobId: string = accepted.body.job.jobId;
  await eventually(
    () => raw.get(`${prefix}test:started:${jobId}`).then((v) => v ?? undefined),
    5_000,
    'the handler to start',
  );
  return jobId;
}

describe('two gateway processes sharing Redis', () => {
  it('a job accepted on A is polled and cancelled on B; A’s running handler aborts within 1 s (pub/sub)', async () => {
    // Polling (cancelPollIntervalMs; callbacks are off) every ten minutes: within this test only
    // the subscription can deliver the cancel.
    const { prefix, a, b } = await pair({ POLL_MS: '600000' });
    const jobId = await acceptWaitingJob(a, prefix);
    // A's onCancel for the job opened its subscriber: a cancel sent before the subscription is up
    // would reach A only through the poll (or the re-read when its subscriber connects).
    await waitForSubscribers(raw, cancelChannels(prefix, false), 'A to subscribe');
    const polled = await call(b, 'GET', `/v1/jobs/${jobId}`);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ jobId, status: 'running' });

    const cancelSent = Date.now();
    const cancelled = await call(b, 'POST', `/v1/jobs/${jobId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job).toMatchObject({ jobId, status: 'cancelled' });
    const abortedAt = Number(
      await eventually(
        () => raw.get(`${prefix}test:aborted:${jobId}`).then((v) => v ?? undefined),
        3_000,
        'A to abort the handler',
      ),
    );
    const latency = abortedAt - cancelSent;
    expect(latency).toBeLessThan(1_000);
    // Both instances report the same final state.
    expect((await call(a, 'GET', `/v1/jobs/${jobId}`)).body.status).toBe('cancelled');
  });

  it('50 concurrent identical idempotent invokes over A and B run the handler once', async () => {
    const { prefix, a, b } = await pair();
    const key = `idem-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        invoke(i % 2 ? b : a, 'count-run', { n: 1 }, { idempotencyKey: key }),
      ),
    );
    expect(await raw.get(`${prefix}test:runs`)).toBe('1');
    const completed = answers.filter((answer) => answer.status === 200);
    const inProgress = answers.filter((answer) => answer.status === 409);
    expect(completed.length + inProgress.length).toBe(50);
    expect(completed.length).toBeGreaterThanOrEqual(1);
    for (const answer of completed) expect(answer.body).toMatchObject({ outputText: 'ran 1' });
    for (const answer of inProgress) expect(answer.body.error.code).toBe('idempotency_in_progress');
    // Once finished, a retry on either instance is a replay, not a second run.
    for (const gateway of [a, b]) {
      const replay = await invoke(gateway, 'count-run', { n: 1 }, { idempotencyKey: key });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await raw.get(`${prefix}test:runs`)).toBe('1');
  });

  it('SIGKILL of A while its job runs: B reports the job failed / worker_lost within the lease + sweep bound', async () => {
    const { prefix, a, b } = await pair({ LEASE_MS: '1000', SWEEP_MS: '250' });
    const jobId = await acceptWaitingJob(a, prefix);
    await a.stop('SIGKILL');
    const killedAt = Date.now();
    const failed = await eventually(
      async () => {
        const { body } = await call(b, 'GET', `/v1/jobs/${jobId}`);
        return body.status === 'failed' ? body : undefined;
      },
      10_000,
      'B to report worker_lost',
    );
    const detectedAfter = Date.now() - killedAt;
    expect(failed.error).toMatchObject({ code: 'worker_lost', retryable: true });
    // Not before the lease could lapse, and well within lease (1 s) + sweep (0.25 s) + slack.
    expect(detectedAfter).toBeGreaterThan(500);
    expect(detectedAfter).toBeLessThan(3_000);
  });

  it('restarting both processes (and Redis, with AOF) loses no job, approval or idempotent answer', async () => {
    const first = await pair();
    const accepted = await invoke(first.a, 'quick-job');
    const jobId: string = accepted.body.job.jobId;
    const done = await eventually(
      async () => {
        const { body } = await call(first.b, 'GET', `/v1/jobs/${jobId}`);
        return body.status === 'completed' ? body : undefined;
      },
      5_000,
      'the job to complete',
    );
    const approval = await invoke(first.b, 'refund', { amount: 5 });
    expect(approval.body.status).toBe('approval_required');
    const approvalId: string = approval.body.approval.approvalId;
    const key = `idem-${randomUUID()}`;
    const original = await invoke(first.a, 'count-run', { n: 7 }, { idempotencyKey: key });
    expect(original.status).toBe(200);

    await Promise.all([first.a.stop(), first.b.stop()]);
    await redis.kill();
    await redis.start();
    const [a, b] = await Promise.all([startGateway(first.env), startGateway(first.env)]);

    expect((await call(a!, 'GET', `/v1/jobs/${jobId}`)).body).toEqual(done);
    const readBack = await call(b!, 'GET', `/v1/approvals/${approvalId}`);
    expect(readBack.status).toBe(200);
    expect(readBack.body.approval).toMatchObject({ approvalId, status: 'pending' });
    const replay = await invoke(b!, 'count-run', { n: 7 }, { idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(original.body);
    expect(await raw.get(`${first.prefix}test:runs`)).toBe('1');
  });
});
