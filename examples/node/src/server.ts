import { createGateway } from '@svc/gateway-kit';
import { serve } from '@svc/gateway-kit/node';
import { demoActions } from './demo-actions.ts';

// Local defaults so `pnpm demo` works with no setup; set GATEWAY_TOKEN for anything real.
const DEV_TOKEN = 'dev-gateway-token';
const port = Number(process.env.PORT ?? 8787);
const hostname = process.env.HOST ?? '127.0.0.1';
const token = process.env.GATEWAY_TOKEN ?? DEV_TOKEN;

const gateway = createGateway({
  gateway: {
    id: 'demo',
    name: 'Demo back office',
    ...(process.env.GATEWAY_URL ? { url: process.env.GATEWAY_URL } : {}),
  },
  agent: {
    id: 'demo-agent',
    name: 'Demo agent',
    description: 'Answers account questions during meetings.',
  },
  version: '2026-11-22',
  actions: demoActions,
  auth: { tokens: [token] },
});

const server = await serve(gateway, { port, hostname });
console.log(`Demo gateway listening on ${server.url}`);
if (token === DEV_TOKEN) {
  console.log(
    `Using the local development token. Try:\n  curl -H 'Authorization: Bearer ${DEV_TOKEN}' ${server.url}/v1/manifest`,
  );
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
