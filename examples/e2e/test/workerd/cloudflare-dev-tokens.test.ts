import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningExample } from '../../src/example-process.ts';
import { persistenceFolder, startWrangler } from '../../src/wrangler-example.ts';

// examples/cloudflare without GATEWAY_TOKEN and OPERATOR_TOKEN: the public development tokens
// (`dev-gateway-token`, `dev-operator-token`, printed in our docs) answer requests addressed to
// this machine only, as every other example does. A deployed Worker is addressed by its public
// host (`<name>.<account>.workers.dev`): there they must open neither the gateway nor the
// operators' approvals API, which approves refunds.
const folder = persistenceFolder();
let example: RunningExample;
beforeAll(async () => {
  example = await startWrangler({
    persistTo: folder.path,
    // Empty, so that a developer's .dev.vars cannot set them.
    vars: { GATEWAY_TOKEN: '', OPERATOR_TOKEN: '' },
  });
});
afterAll(async () => {
  await example?.stop();
  folder.remove();
});

/** GET `path` with `token`, addressed to `host` (what a deployed Worker's requests carry). */
function get(
  path: string,
  token: string,
  host: string,
): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(example.url);
  return new Promise((resolve, reject) => {
    const sent = request(
      { hostname, port, path, headers: { host, authorization: `Bearer ${token}` } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => {
          text += chunk;
        });
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

const PUBLIC_HOST = 'svc-demo-gateway.acme.workers.dev';
const refused = {
  status: 500,
  body: {
    error: {
      code: 'internal_error',
      message: 'The gateway failed unexpectedly.',
      retryable: false,
    },
  },
};

it('the development tokens are refused on a public host: gateway and operator API answer 500 and the Worker says why', async () => {
  expect(await get('/v1/manifest', 'dev-gateway-token', PUBLIC_HOST)).toEqual(refused);
  expect(await get('/operator/api/approvals', 'dev-operator-token', PUBLIC_HOST)).toEqual(refused);
  // The Worker's log reaches wrangler's output through workerd, after (not with) the answer.
  await expect.poll(() => example.output()).toContain('GATEWAY_TOKEN');
  await expect.poll(() => example.output()).toContain('OPERATOR_TOKEN');
});

it('on this machine the development tokens still work, as the docs start it', async () => {
  const host = new URL(example.url).host;
  expect(await get('/v1/manifest', 'dev-gateway-token', host)).toMatchObject({ status: 200 });
  expect(await get('/operator/api/approvals', 'dev-operator-token', host)).toMatchObject({
    status: 200,
    body: { approvals: [] },
  });
});
