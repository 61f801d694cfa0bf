import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The Redis package's own test helper: redis-server on a free loopback port (real clock under faketime).
import {
  startRedis,
  type TestRedis,
} from '../../../packages/gateway-kit-redis/test/redis-server.ts';
import { type RunningExample, startExample } from '../src/example-process.ts';

// examples/node switched to Redis by one variable: two instances share jobs and approvals.
const TOKEN = 'e2e-redis-gateway-token';
const auth = { authorization: `Bearer ${TOKEN}` };

/** The fields of the two invoke answers this test reads. */
interface InvokeAnswer {
  status: string;
  job: { jobId: string };
  approval: { approvalId: string };
}

let redis: TestRedis;
let a: RunningExample;
let b: RunningExample;

beforeAll(async () => {
  redis = await startRedis();
  const env = { GATEWAY_TOKEN: TOKEN, REDIS_URL: redis.url };
  [a, b] = await Promise.all([
    startExample({ example: 'node', command: process.execPath, args: ['src/server.ts'], env }),
    startExample({ example: 'node', command: process.execPath, args: ['src/server.ts'], env }),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

function invoke(base: string, action: string, input: Record<string, unknown>) {
  return fetch(`${base}/v1/invoke`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      invocationId: `inv_${crypto.randomUUID()}`,
      meeting: { id: 'm1', roomName: 'Redis review' },
      session: { id: 's1', mode: 'active' },
      action: { id: action, input },
      context: {},
      callbacks: {},
    }),
  }).then((response) => response.json() as Promise<InvokeAnswer>);
}

describe('examples/node with REDIS_URL: two instances share one Redis', () => {
  it('says so at start-up', () => {
    expect(a.output()).toContain('Redis (REDIS_URL)');
  });

  it('accepts a job on A, shows and cancels it on B, and A sees the cancellation', async () => {
    const accepted = await invoke(a.url, 'generate-report', { topic: 'churn', delayMs: 20_000 });
    expect(accepted.status).toBe('accepted');
    const jobId = accepted.job.jobId;
    const onB = await fetch(`${b.url}/v1/jobs/${jobId}`, { headers: auth });
    expect(onB.status).toBe(200);
    expect(['queued', 'running']).toContain(((await onB.json()) as { status: string }).status);
    const cancelled = await fetch(`${b.url}/v1/jobs/${jobId}/cancel`, {
      method: 'POST',
      headers: auth,
    });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { job: { status: string } }).job.status).toBe('cancelled');
    const onA = await fetch(`${a.url}/v1/jobs/${jobId}`, { headers: auth });
    expect(((await onA.json()) as { status: string }).status).toBe('cancelled');
  });

  it('shows an approval requested on A to B', async () => {
    const requested = await invoke(a.url, 'issue-refund', {
      orderId: 'ord_2001',
      amountCents: 1500,
    });
    expect(requested.status).toBe('approval_required');
    const onB = await fetch(`${b.url}/v1/approvals/${requested.approval.approvalId}`, {
      headers: auth,
    });
    expect(onB.status).toBe(200);
    expect(((await onB.json()) as { approval: { status: string } }).approval.status).toBe(
      'pending',
    );
  });
});
