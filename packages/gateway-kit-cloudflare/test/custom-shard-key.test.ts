import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// createGatewayWorker with a custom shardKey (one object per tenant, read from a header any
// caller can send), in workerd: the Worker authenticates first, so requests that do not
// authenticate never reach shardKey and create no object of their own.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/tenant-worker.ts', import.meta.url)),
);
const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    name: 'tenants',
    modules: true,
    script,
    compatibilityDate: '2026-11-01',
    durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
  }),
);
afterAll(() => miniflare.dispose());

const manifest = (tenant: string, token?: string) =>
  miniflare.dispatchFetch('http://tenants/v1/manifest', {
    headers: {
      'x-tenant': tenant,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
  });
const json = async (path: string) =>
  (await miniflare.dispatchFetch(`http://tenants${path}`)).json();

it('unauthenticated requests with arbitrary tenants all go to the anonymous object, and never reach shardKey', async () => {
  await json('/_routed');
  const statuses = [];
  for (const [tenant, token] of [
    ['tenant-1', undefined],
    ['tenant-2', 'made-up'],
    ['tenant-3', 'token-alic'],
  ] as const)
    statuses.push((await manifest(tenant, token)).status);
  expect(statuses).toEqual([401, 401, 401]);
  expect(await json('/_routed')).toEqual(['anonymous', 'anonymous', 'anonymous']);
  expect(await json('/_shardKey')).toEqual([]);
});

it('an authenticated caller is routed by shardKey, which receives its principal', async () => {
  await json('/_routed');
  await json('/_shardKey');
  expect((await manifest('acme', 'token-alice')).status).toBe(200);
  expect((await manifest('acme', 'token-bob')).status).toBe(200);
  expect(await json('/_routed')).toEqual(['tenant:acme', 'tenant:acme']);
  expect(await json('/_shardKey')).toEqual(['alice', 'bob']);
});
