import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, eventually, invoke, startGateway, stopAllGateways } from './gateway-processes.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

let postgres: TestPostgres;
let schemas: Schemas;
beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
  await schemas.query('CREATE TABLE public.test_kv (key text PRIMARY KEY, value text)');
});
afterAll(async () => {
  postgres.resume();
  await stopAllGateways();
  await schemas.close();
  await postgres.stop();
});

// The stores' default commandTimeoutMs; every answer must come within it plus one second.
const COMMAND_TIMEOUT_MS = 2_000;

it('PostgreSQL paused (SIGSTOP) for 15 s under load: every answer a 503 envelope within the deadline + 1 s; serving again within 5 s of SIGCONT', async () => {
  const schema = await schemas.fresh('pause');
  await schemas.close();
  const gateway = await startGateway({ DATABASE_URL: postgres.url, SCHEMA: schema });
  const before = await invoke(gateway, 'quick-job');
  expect(before.body.status).toBe('accepted');

  postgres.pause();
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

  postgres.resume();
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
  const recovered = Date.now() - resumed;
  expect(recovered).toBeLessThan(5_000);
  expect(gateway.alive()).toBe(true);
  // The figures docs/postgres.md's failure table quotes.
  console.info(
    `measured: slowest answer while paused ${slowest} ms; serving ${recovered} ms after SIGCONT`,
  );
}, 60_000);
