import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// The Worker runs `auth.verify` to pick the caller's object: an identity provider that does not
// answer must get the gateway's budget there too (10 s, then `503 unavailable`), never hang.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/slow-verify-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'slow-verify',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
    durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
  }),
);
afterAll(() => miniflare.dispose());

const manifest = (token: string) =>
  miniflare.dispatchFetch('http://slow-verify/v1/manifest', {
    headers: { authorization: `Bearer ${token}` },
  });

it('a verify that answers routes as usual', async () => {
  expect((await manifest('token-ok')).status).toBe(200);
  expect((await manifest('made-up')).status).toBe(401);
});

it("a verify that never answers is answered 503 unavailable after the gateway's 10 s budget, not left hanging", async () => {
  // The worker's timers run 100 times faster (see the worker): its 10 s are 100 ms here.
  const started = Date.now();
  const answer = await manifest('token-hangs');
  expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  expect(answer.status).toBe(503);
  expect(await answer.json()).toEqual({
    error: {
      code: 'unavailable',
      message: 'Authentication did not answer in time.',
      retryable: true,
    },
  });
});
