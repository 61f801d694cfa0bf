import { type CallbackReceiver, startReceiver } from '@svc/gateway-processes';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, eventually, invoke, startGateway, stopAllGateways } from './gateway-processes.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

const SECRET = `whsec_${Buffer.from('postgres-restart-test-secret').toString('base64')}`;
let postgres: TestPostgres;
let schemas: Schemas;
let receiver: CallbackReceiver;

beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
  await schemas.query('CREATE TABLE public.test_kv (key text PRIMARY KEY, value text)');
  receiver = await startReceiver(200);
});
afterAll(async () => {
  await stopAllGateways();
  await receiver.close();
  await schemas.close();
  await postgres.stop();
});

it('pg_ctl stop -m immediate and start with 20 jobs in flight: all 20 terminal, one callback each, within 10 s of the restart', async () => {
  const schema = await schemas.fresh('restart');
  await schemas.close(); // the test's own connection would die with the server anyway
  const env = {
    DATABASE_URL: postgres.url,
    SCHEMA: schema,
    CALLBACK_SECRET: SECRET,
    POLL_MS: '250',
  };
  const [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
  const jobIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    // Spread over 1–3 s: some end while the server is down, some after it is back.
    const accepted = await invoke(
      i % 2 ? a! : b!,
      'slow-job',
      { ms: 1_000 + (i % 5) * 500 },
      { callbacks: { jobResultUrl: receiver.url } },
    );
    expect(accepted.status).toBe(200);
    jobIds.push(accepted.body.job.jobId);
  }

  await postgres.crash();
  // The outage itself, of a fixed length (while the server is down there is no state to wait
  // for): jobs go on finishing meanwhile, their terminal writes failing.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await postgres.start();
  const restarted = Date.now();

  const expected = jobIds.map((jobId) => `job_${jobId}_completed`).sort();
  await eventually(
    async () => {
      const ids = new Set(receiver.deliveredIds());
      return expected.every((id) => ids.has(id)) ? true : undefined;
    },
    10_000,
    'every callback',
  );
  const allDelivered = Date.now() - restarted;
  expect(allDelivered).toBeLessThan(10_000);
  console.info(`measured: all 20 callbacks delivered ${allDelivered} ms after the restart`);
  for (const jobId of jobIds) {
    const { body } = await call(jobIds.indexOf(jobId) % 2 ? b! : a!, 'GET', `/v1/jobs/${jobId}`);
    expect(body).toMatchObject({ jobId, status: 'completed' });
  }
  // One delivery each. First the outbox is drained: every entry marked delivered, nothing left
  // that a poll could claim and send again.
  const after = new Schemas(postgres.url);
  try {
    await eventually(
      async () => {
        const [pending] = await after.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE NOT done`,
        );
        return pending?.n === 0 ? true : undefined;
      },
      10_000,
      'the outbox to drain',
    );
  } finally {
    await after.close();
  }
  // What must NOT happen (a second delivery) has no event to wait for: a fixed window of eight
  // polls (250 ms) and two retry delays (at most 1 s), for anything already in flight.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(receiver.deliveredIds().sort()).toEqual(expected);
}, 60_000);
