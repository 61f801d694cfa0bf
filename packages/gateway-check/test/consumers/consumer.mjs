// ESM consumer: resolves the packed package through its exports map and checks a tiny gateway.
import assert from 'node:assert/strict';
import { checkGateway, RULES } from '@svc/gateway-check';
import { createGatewayClient, isGatewayClientError } from '@svc/gateway-check/client';

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const manifest = {
  version: '2026-11-22',
  gateway: {
    id: 'g',
    name: 'G',
    url: 'http://gateway.test',
    auth: { type: 'bearer' },
    capabilities: { asyncJobs: false, jobCallbacks: false, approvals: false },
  },
  agent: { id: 'a', name: 'A', description: '' },
  actions: [],
  callbacks: { jobResults: false, approvals: false },
};
const fetch = async (input, init) => {
  const request = new Request(input, init);
  if (request.headers.get('authorization') !== 'Bearer t') {
    return json({ error: { code: 'unauthorized', message: 'No.', retryable: false } }, 401);
  }
  return json(manifest);
};

const client = createGatewayClient({ url: 'http://gateway.test', token: 't', fetch });
assert.equal((await client.manifest()).version, '2026-11-22');
const error = await createGatewayClient({ url: 'http://gateway.test', token: 'x', fetch })
  .manifest()
  .catch((e) => e);
assert.ok(isGatewayClientError(error) && error.status === 401);

const report = await checkGateway({
  url: 'http://gateway.test',
  token: 't',
  fetch,
  only: 'manifest-shape',
});
assert.equal(report.counts.passed, 1);
assert.ok(RULES['auth-bearer'].summary);
console.log('esm consumer ok');
