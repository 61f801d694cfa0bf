import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// The Worker verifies a token to pick the caller's object, the object verifies it again to serve.
// When the two answers differ, the request must never be served by the shared `anonymous` object:
// what it would create there (a job, an idempotency key) is out of the caller's reach afterwards,
// and a retry under the same key would run the action a second time in the caller's own object.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/flaky-verify-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'flaky-verify',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
    durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
  }),
);
afterAll(() => miniflare.dispose());

const invoke = (token: string) =>
  miniflare.dispatchFetch('http://flaky-verify/v1/invoke', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(invokeBody('report', { topic: 'flaky' })),
  });

it('a verify that throws in the Worker is answered as the gateway answers it (500), not served by the anonymous object', async () => {
  const first = await invoke('token-throws-once');
  expect(first.status).toBe(500);
  expect(await first.json()).toEqual({
    error: {
      code: 'internal_error',
      message: 'The gateway failed unexpectedly.',
      retryable: false,
    },
  });
  // The retry is served by the caller's own object, where its job stays readable.
  const retried = await invoke('token-throws-once');
  const { job } = (await retried.json()) as { job: { jobId: string } };
  const read = await miniflare.dispatchFetch(`http://flaky-verify/v1/jobs/${job.jobId}`, {
    headers: { authorization: 'Bearer token-throws-once' },
  });
  expect(read.status).toBe(200);
});

it('a token the Worker refused is answered 401 even if the object would accept it', async () => {
  const answer = await invoke('token-late');
  expect(answer.status).toBe(401);
  expect(await answer.json()).toMatchObject({ error: { code: 'unauthorized' } });
});

it('an unknown route and a wrong method are still answered 404 and 405 without a token', async () => {
  const unknown = await miniflare.dispatchFetch('http://flaky-verify/v1/nothing-here');
  expect(unknown.status).toBe(404);
  const wrong = await miniflare.dispatchFetch('http://flaky-verify/v1/invoke', {
    headers: { authorization: 'Bearer made-up' },
  });
  expect(wrong.status).toBe(405);
});
