import { type CallbackReceiver, startReceiver } from '@svc/gateway-processes';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  eventually,
  type GatewayProcess,
  invoke,
  startGateway,
  stopAllGateways,
} from './gateway-processes.ts';
import { startPostgres, type TestPostgres } from './postgres-server.ts';
import { Schemas } from './schemas.ts';

// Two gateway processes (A and B) on different ports sharing one database and schema, as behind
// a load balancer.
const SECRET = `whsec_${Buffer.from('postgres-multi-process-secret').toString('base64')}`;
let postgres: TestPostgres;
let schemas: Schemas;
let receiver: CallbackReceiver | undefined;

beforeAll(async () => {
  postgres = await startPostgres();
  schemas = new Schemas(postgres.url);
  await schemas.query('CREATE TABLE public.test_kv (key text PRIMARY KEY, value text)');
});
afterEach(async () => {
  await stopAllGateways();
  await receiver?.close();
  receiver = undefined;
});
afterAll(async () => {
  await schemas.close();
  await postgres.stop();
});

async function pair(settings: Record<string, string> = {}) {
  const schema = await schemas.fresh('mp');
  const env = { DATABASE_URL: postgres.url, SCHEMA: schema, ...settings };
  const [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
  return { schema, env, a: a!, b: b! };
}

const noted = (schema: string, key: string) =>
  schemas
    .query<{ value: string }>('SELECT value FROM public.test_kv WHERE key = $1', [
      `${schema}:${key}`,
    ])
    .then((rows) => rows[0]?.value);

async function acceptWaitingJob(
  gateway: GatewayProcess,
  schema: string,
  overrides: Parameters<typeof invoke>[3] = {},
): Promise<string> {
  const accepted = await invoke(gateway, 'wait-for-cancel', {}, overrides);
  expect(accepted.status).toBe(200);
  expect(accepted.body).toMatchObject({ status: 'accepted' });
  const jobId: string = accepted.body.job.jobId;
  await eventually(() => noted(schema, `started:${jobId}`), 5_000, 'the handler to start');
  return jobId;
}

describe('two gateway processes sharing one PostgreSQL schema', () => {
  it('a job accepted on A is read and cancelled on B; A’s running handler aborts within 1 s (LISTEN/NOTIFY)', async () => {
    const { schema, a, b } = await pair();
    const jobId = await acceptWaitingJob(a, schema);
    const polled = await call(b, 'GET', `/v1/jobs/${jobId}`);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ jobId, status: 'running' });

    const cancelSent = Date.now();
    const cancelled = await call(b, 'POST', `/v1/jobs/${jobId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job).toMatchObject({ jobId, status: 'cancelled' });
    const abortedAt = Number(
      await eventually(() => noted(schema, `aborted:${jobId}`), 3_000, 'A to abort the handler'),
    );
    expect(abortedAt - cancelSent).toBeLessThan(1_000);
    expect((await call(a, 'GET', `/v1/jobs/${jobId}`)).body.status).toBe('cancelled');
  });

  it('SIGKILL of A while its job runs: B fails it with worker_lost within lease + sweep, and B delivers its callback once', async () => {
    receiver = await startReceiver(200);
    const leaseMs = 3_000;
    const sweepMs = 500;
    const { schema, a, b } = await pair({
      LEASE_MS: String(leaseMs),
      SWEEP_MS: String(sweepMs),
      POLL_MS: '250',
      CALLBACK_SECRET: SECRET,
    });
    const jobId = await acceptWaitingJob(a, schema, {
      callbacks: { jobResultUrl: receiver.url, authorization: 'Bearer receiver-token' },
    });
    await a.stop('SIGKILL');
    const killedAt = Date.now();
    const failed = await eventually(
      async () => {
        const { body } = await call(b, 'GET', `/v1/jobs/${jobId}`);
        return body.status === 'failed' ? body : undefined;
      },
      leaseMs + sweepMs + 5_000,
      'B to report worker_lost',
    );
    const detectedAfter = Date.now() - killedAt;
    expect(failed.error).toMatchObject({ code: 'worker_lost', retryable: true });
    // Not before the lease could lapse (it was renewed at most leaseMs / 3 before the kill).
    expect(detectedAfter).toBeGreaterThan((leaseMs * 2) / 3 - 100);
    expect(detectedAfter).toBeLessThan(leaseMs + sweepMs + 1_500);
    console.info(`measured: worker_lost ${detectedAfter} ms after SIGKILL (lease ${leaseMs} ms)`);

    const webhookId = `job_${jobId}_failed`;
    await eventually(
      async () => (receiver!.deliveredIds().includes(webhookId) ? true : undefined),
      5_000,
      'B to deliver the callback',
    );
    const delivered = receiver.received.find((r) => r.webhookId === webhookId)!;
    const body = new Webhook(SECRET).verify(delivered.body, {
      'webhook-id': delivered.webhookId,
      'webhook-timestamp': delivered.timestamp,
      'webhook-signature': delivered.signature,
    });
    expect(body).toMatchObject({
      job: { jobId, status: 'failed', error: { code: 'worker_lost' } },
    });
    // Once: well after the unannounced sweep could have reported the job again. What must NOT
    // happen has no event to wait for: a fixed window of a lease and two sweeps.
    await new Promise((resolve) => setTimeout(resolve, leaseMs + sweepMs * 2));
    expect(receiver.deliveredIds().filter((id) => id === webhookId)).toHaveLength(1);
  });

  it('50 concurrent identical idempotent invokes over A and B run once; retries replay on either', async () => {
    const { a, b } = await pair();
    const key = `idem-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        invoke(i % 2 ? b : a, 'count-run', { n: 1 }, { idempotencyKey: key }),
      ),
    );
    const completed = answers.filter((answer) => answer.status === 200);
    const inProgress = answers.filter((answer) => answer.status === 409);
    expect(completed.length + inProgress.length).toBe(50);
    expect(completed.length).toBeGreaterThanOrEqual(1);
    for (const answer of inProgress) expect(answer.body.error.code).toBe('idempotency_in_progress');
    for (const gateway of [a, b]) {
      const replay = await invoke(gateway, 'count-run', { n: 1 }, { idempotencyKey: key });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
  });
});
