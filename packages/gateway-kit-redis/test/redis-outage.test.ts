import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, eventually, invoke, startGateway, stopAllGateways } from './gateway-processes.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await stopAllGateways();
  await redis.stop();
});

it('a Redis outage of a few seconds gives retryable 503 envelopes, no crash, and normal service afterwards', async () => {
  const env = { REDIS_URL: redis.url, PREFIX: `outage:${randomUUID()}:` };
  const [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
  const before = await invoke(a!, 'quick-job');
  expect(before.body.status).toBe('accepted');

  await redis.kill();
  const outageEnds = Date.now() + 3_000;
  let answered = 0;
  while (Date.now() < outageEnds) {
    for (const gateway of [a!, b!]) {
      const started = Date.now();
      const answers = await Promise.all([
        invoke(gateway, 'quick-job'), // job store
        call(gateway, 'GET', `/v1/jobs/${before.body.job.jobId}`), // job store
        invoke(gateway, 'count-run', { n: 1 }, { idempotencyKey: randomUUID() }), // record store
        invoke(gateway, 'refund', { amount: 1 }), // approvals in the record store
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.body.error).toMatchObject({ code: 'unavailable', retryable: true });
      }
      // Offline commands fail at once instead of queueing until a timeout.
      expect(Date.now() - started).toBeLessThan(1_500);
      answered += answers.length;
    }
    // A client's pace through the outage (the outage's length is the scenario).
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(answered).toBeGreaterThan(16);
  // What needs no store keeps working, and both processes are still alive.
  expect((await call(a!, 'GET', '/v1/manifest')).status).toBe(200);
  expect(a!.alive() && b!.alive()).toBe(true);

  await redis.start(); // same port, empty (no persistence)
  const restarted = Date.now();
  // Each connection comes back within its reconnect back-off (at most ~1 s).
  for (const gateway of [a!, b!]) {
    await eventually(
      async () => {
        const job = await invoke(gateway, 'quick-job');
        const sync = await invoke(gateway, 'count-run', { n: 1 }, { idempotencyKey: randomUUID() });
        return job.status === 200 && sync.status === 200 ? true : undefined;
      },
      5_000,
      'the gateway to serve again',
    );
  }
  expect(Date.now() - restarted).toBeLessThan(5_000);
  // Then it is normal service: a job accepted on A completes and is read on B, nothing fails.
  const accepted = await invoke(a!, 'quick-job');
  expect(accepted.status).toBe(200);
  const jobId: string = accepted.body.job.jobId;
  const done = await eventually(
    async () => {
      const { body } = await call(b!, 'GET', `/v1/jobs/${jobId}`);
      return body.status === 'completed' ? body : undefined;
    },
    5_000,
    'B to see the job completed',
  );
  expect(done.outputText).toBe('done');
  const burst = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      invoke(i % 2 ? a! : b!, 'count-run', { n: i }, { idempotencyKey: randomUUID() }),
    ),
  );
  expect(burst.map((answer) => answer.status)).toEqual(Array(20).fill(200));
});
