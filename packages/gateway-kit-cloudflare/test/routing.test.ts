import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it, vi } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// createGatewayWorker's default routing, in workerd: one object per principal (its tokens share
// it), and one `anonymous` object for everything that does not authenticate.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/routing-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'routing',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
    durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
  }),
);
afterAll(() => miniflare.dispose());

const get = (path: string, token?: string) =>
  miniflare.dispatchFetch(`http://routing${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
const json = async (path: string) => (await get(path)).json();
const shardOf = (principal: string) => json(`/_shard?principal=${principal}`);

it('routes each principal to its own object, and every refused request to one anonymous object', async () => {
  await json('/_routed');
  const answers = [];
  for (const token of ['token-default', 'token-bob', 'token-bob-rotated', 'made-up', undefined])
    answers.push((await get('/v1/manifest', token)).status);
  expect(answers).toEqual([200, 200, 200, 401, 401]);
  const bob = await shardOf('bob');
  expect(await json('/_routed')).toEqual([
    await shardOf('default'),
    bob,
    bob,
    'anonymous',
    'anonymous',
  ]);
  expect(bob).toMatch(/^principal:[0-9a-f]{64}$/);
  expect(bob).not.toContain('bob');
});

it("a principal's job is read through any of its tokens, never through another principal's", async () => {
  const accepted = await miniflare.dispatchFetch('http://routing/v1/invoke', {
    method: 'POST',
    headers: { authorization: 'Bearer token-bob', 'content-type': 'application/json' },
    body: JSON.stringify(invokeBody('report', { topic: 'routing' })),
  });
  const { job } = (await accepted.json()) as { job: { jobId: string } };
  // The status of the job's read through `token`, once it is final (a refusal is at once).
  const read = (token: string) =>
    vi.waitFor(
      async () => {
        const answer = await get(`/v1/jobs/${job.jobId}`, token);
        const body = (await answer.json()) as { status?: string };
        if (answer.status === 200 && body.status !== 'completed')
          throw new Error(`the job is still ${body.status}`);
        return answer.status;
      },
      { timeout: 10_000, interval: 20 },
    );
  expect(await read('token-bob-rotated')).toBe(200);
  expect(await read('token-default')).toBe(404);
});
