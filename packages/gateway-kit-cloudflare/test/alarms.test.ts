import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// What the Durable Object's alarm does when no request comes, across a restart of the runtime on
// the same persistence folder: a pending approval expires on time and its callback goes out; a
// callback whose target was down is retried and delivered.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/alarm-worker.ts', import.meta.url)),
);
const folder = mkdtempSync(join(tmpdir(), 'svc-do-alarms-'));
/** The runtime on the shared folder; `approvalTtl: 'refused'` makes its configuration refused. */
const runtime = ({ approvalTtl = '1500', errors = [] as string[] } = {}) =>
  new Miniflare(
    convertV4MiniflareOptions({
      name: 'alarms',
      modules: true,
      script,
      compatibilityDate: '2026-11-01',
      resourcePersistencePath: folder,
      bindings: { APPROVAL_TTL_MS: approvalTtl },
      durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
      handleStructuredLogs: (log) => {
        if (log.level === 'error') errors.push(log.message);
      },
    }),
  );

/** A loopback receiver: answers `status()` to each callback and records the ones it accepted. */
const received: { id: string; body: unknown }[] = [];
let answer = 204;
let refused = 0;
const waiters = new Set<() => void>();
const receiver = createServer((req, res) => {
  let text = '';
  req.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  req.on('end', () => {
    res.writeHead(answer).end();
    if (answer >= 300) refused += 1;
    if (answer < 300)
      received.push({ id: String(req.headers['webhook-id']), body: JSON.parse(text) });
    for (const wake of waiters) wake();
  });
});
let receiverUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

function callback(id: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const hit = received.find((r) => r.id === id);
      if (!hit) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(hit.body);
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(
        new Error(`no callback ${id} within ${timeoutMs} ms (got ${received.map((r) => r.id)})`),
      );
    }, timeoutMs);
    waiters.add(check);
    check();
  });
}

const invoke = (miniflare: Miniflare, body: unknown) =>
  miniflare.dispatchFetch('http://alarms/v1/invoke', {
    method: 'POST',
    headers: { authorization: 'Bearer alarm-token', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * A `report` job accepted with its callback to the receiver, which refuses (503) its first
 * attempt: rescheduled, the callback waits in the object's outbox. Leaves the receiver refusing.
 */
async function reportWithRefusedCallback(miniflare: Miniflare, topic: string) {
  answer = 503;
  const refusedBefore = refused;
  const accepted = (await (
    await invoke(
      miniflare,
      invokeBody('report', { topic }, { callbacks: { jobResultUrl: `${receiverUrl}/${topic}` } }),
    )
  ).json()) as { job: { jobId: string; statusUrl: string } };
  await vi.waitFor(() => expect(refused).toBeGreaterThan(refusedBefore), {
    timeout: 5_000,
    interval: 20,
  });
  return accepted;
}

/** A new runtime on the folder sends the job's `completed` callback, with no request. */
async function expectCompletedCallbackAfterRestart(jobId: string): Promise<void> {
  const after = runtime();
  try {
    const body = await callback(`job_${jobId}_completed`, 15_000);
    expect(body).toMatchObject({ job: { jobId, status: 'completed' } });
  } finally {
    await after.dispose();
  }
}

it('a pending approval expires on time after a restart, with no request, and calls back', async () => {
  const before = runtime();
  const required = (await (
    await invoke(
      before,
      invokeBody('refund', { cents: 100 }, { callbacks: { approvalUrl: `${receiverUrl}/a` } }),
    )
  ).json()) as { approval: { approvalId: string; expiresAt: string } };
  await before.dispose();

  const after = runtime();
  try {
    const body = await callback(`approval_${required.approval.approvalId}_expired`, 15_000);
    expect(body).toMatchObject({ approval: { status: 'expired' } });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(required.approval.expiresAt));
    // The operators' sweep (worker.approvals(…).sweep()) reaches the object: the alarm left it
    // nothing to do.
    expect(await (await after.dispatchFetch('http://alarms/_sweep')).json()).toBe(0);
  } finally {
    await after.dispose();
  }
}, 30_000);

it('a callback whose target was down is retried by the alarm after a restart', async () => {
  const before = runtime();
  const accepted = await reportWithRefusedCallback(before, 'retry');
  const job = await before.dispatchFetch(accepted.job.statusUrl, {
    headers: { authorization: 'Bearer alarm-token' },
  });
  expect(await job.json()).toMatchObject({ status: 'completed' });
  await before.dispose();
  answer = 204;

  await expectCompletedCallbackAfterRestart(accepted.job.jobId);
}, 30_000);

it('a callback that waits while the configuration is refused goes out once it is accepted again, with no request', async () => {
  const before = runtime();
  const accepted = await reportWithRefusedCallback(before, 'refused');
  await before.dispose();
  answer = 204;

  // A deployment whose configuration is refused (a binding wrong): no request reaches the object,
  // but its alarm (the callback's retry) wakes it, and it logs the refusal.
  const errors: string[] = [];
  const refusing = runtime({ approvalTtl: 'refused', errors });
  try {
    await vi.waitFor(() => expect(errors.join('\n')).toContain('configuration is refused'), {
      timeout: 10_000,
      interval: 20,
    });
  } finally {
    await refusing.dispose();
  }
  expect(received.some((r) => r.id === `job_${accepted.job.jobId}_completed`)).toBe(false);

  // Fixed again: the alarm the refused object kept armed delivers the callback, with no request.
  await expectCompletedCallbackAfterRestart(accepted.job.jobId);
}, 45_000);
