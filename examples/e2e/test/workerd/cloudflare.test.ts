import { afterAll } from 'vitest';
import { contractWalk } from '../../src/contract-walk.ts';
import { persistenceFolder, startWrangler } from '../../src/wrangler-example.ts';

// examples/cloudflare started as its docs say (wrangler dev: the Worker and its Durable Objects in
// workerd), walked over HTTP like every other example, operator API included.
const TOKEN = 'e2e-cloudflare-gateway-token';
const OPERATOR_TOKEN = 'e2e-cloudflare-operator-token';
const folder = persistenceFolder();
afterAll(() => folder.remove());

contractWalk({
  title: 'examples/cloudflare (wrangler dev, workerd, Durable Objects)',
  token: TOKEN,
  operatorToken: OPERATOR_TOKEN,
  start: () =>
    startWrangler({
      persistTo: folder.path,
      vars: { GATEWAY_TOKEN: TOKEN, OPERATOR_TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
});
