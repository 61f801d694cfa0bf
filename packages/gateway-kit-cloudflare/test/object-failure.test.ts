import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// What the caller gets when the Durable Object behind the Worker fails (test/workerd/
// object-failure-worker.ts): the platform failing is the contract's `503 unavailable`, which the
// caller may retry; the object's own code failing is `500 internal_error`, which it may not.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/object-failure-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'object-failure',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
    durableObjects: {
      GATEWAY: { className: 'GatewayObject', useSQLite: true },
      ABORTING: { className: 'AbortingObject', useSQLite: true },
    },
  }),
);
afterAll(() => miniflare.dispose());

const manifest = (fail?: string) =>
  miniflare.dispatchFetch('http://object-failure/v1/manifest', {
    headers: { authorization: 'Bearer failure-token', ...(fail ? { 'x-fail': fail } : {}) },
  });

it.each(['retryable', 'overloaded'])(
  'an object the platform marks %s answers 503 unavailable, retryable, in the envelope',
  async (fail) => {
    const answer = await manifest(fail);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({
      error: {
        code: 'unavailable',
        message: 'The gateway is temporarily unavailable.',
        retryable: true,
      },
    });
  },
);

it('an object whose own code failed answers 500 internal_error, not retryable', async () => {
  const answer = await manifest('remote');
  expect(answer.status).toBe(500);
  expect(await answer.json()).toEqual({
    error: {
      code: 'internal_error',
      message: 'The gateway failed unexpectedly.',
      retryable: false,
    },
  });
});

it('the same Worker serves the manifest when its object answers', async () => {
  expect((await manifest()).status).toBe(200);
});
