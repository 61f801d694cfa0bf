import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it, vi } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/stateless-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'plain',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
  }),
);
afterAll(() => miniflare.dispose());
const auth = { authorization: 'Bearer plain-token', 'content-type': 'application/json' };

it('a gateway created at module scope serves the manifest and a sync invoke', async () => {
  const manifest = await miniflare.dispatchFetch('http://plain/v1/manifest', { headers: auth });
  expect(manifest.status).toBe(200);
  const answer = await miniflare.dispatchFetch('http://plain/v1/invoke', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(invokeBody('echo', { text: 'hi' })),
  });
  expect(await answer.json()).toMatchObject({ status: 'completed' });
});

it('runs an async job after the response and keeps a pending approval', async () => {
  const accepted = await miniflare.dispatchFetch('http://plain/v1/invoke', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(invokeBody('slow-echo', { text: 'later' })),
  });
  const body = (await accepted.json()) as { status: string; job: { statusUrl: string } };
  expect(body.status).toBe('accepted');
  // The job ran after the response, kept alive by the request's waitUntil: read until it ends.
  const job = await vi.waitFor(
    async () => {
      const read = (await (
        await miniflare.dispatchFetch(body.job.statusUrl, { headers: auth })
      ).json()) as { status: string; outputText?: string };
      if (read.status === 'queued' || read.status === 'running')
        throw new Error(`the job is still ${read.status}`);
      return read;
    },
    { timeout: 10_000, interval: 20 },
  );
  expect(job).toMatchObject({ status: 'completed', outputText: 'later' });
  const approval = await miniflare.dispatchFetch('http://plain/v1/invoke', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(invokeBody('guarded', { text: 'careful' })),
  });
  const required = (await approval.json()) as { status: string; approval: { approvalId: string } };
  expect(required.status).toBe('approval_required');
  const read = await miniflare.dispatchFetch(
    `http://plain/v1/approvals/${required.approval.approvalId}`,
    { headers: auth },
  );
  expect(await read.json()).toMatchObject({ approval: { status: 'pending' } });
});
