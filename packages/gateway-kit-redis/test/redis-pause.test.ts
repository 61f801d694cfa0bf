import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, eventually, invoke, startGateway, stopAllGateways } from './gateway-processes.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  redis.resume();
  await stopAllGateways();
  await redis.stop();
});

// The stores' default commandTimeoutMs; every answer must come within it plus one second.
const COMMAND_TIMEOUT_MS = 2_000;

it('Redis paused for 15 s under load: every request answers a 503 envelope in time; after SIGCONT the gateway serves again within 5 s', async () => {
  const env = { REDIS_URL: redis.url, PREFIX: `pause:${randomUUID()}:` };
  const gateway = await startGateway(env);
  const before = await invoke(gateway, 'quick-job');
  expect(before.body.status).toBe('accepted');

  redis.pause();
  const pauseEnds = Date.now() + 15_000;
  let answered = 0;
  let slowest = 0;
  while (Date.now() < pauseEnds) {
    const started = Date.now();
    const answers = await Promise.all([
      invoke(gateway, 'quick-job'),
      call(gateway, 'GET', `/v1/jobs/${before.body.job.jobId}`),
      invoke(gateway, 'count-run', { n: 1 }, { idempotencyKey: randomUUID() }),
      invoke(gateway, 'refund', { amount: 1 }),
    ]);
    slowest = Math.max(slowest, Date.now() - started);
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ code: 'unavailable', retryable: true });
    }
    answered += answers.length;
  }
  expect(slowest).toBeLessThan(COMMAND_TIMEOUT_MS + 1_000);
  expect(answered).toBeGreaterThanOrEqual(20);
  expect((await call(gateway, 'GET', '/v1/manifest')).status).toBe(200);

  redis.resume();
  const resumed = Date.now();
  await eventually(
    async () => {
      const job = await invoke(gateway, 'quick-job');
      const sync = await invoke(gateway, 'count-run', { n: 1 }, { idempotencyKey: randomUUID() });
      return job.status === 200 && sync.status === 200 ? true : undefined;
    },
    5_000,
    'the gateway to serve again after SIGCONT',
  );
  expect(Date.now() - resumed).toBeLessThan(5_000);
  expect(gateway.alive()).toBe(true);
}, 40_000);
