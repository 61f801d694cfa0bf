import { serve } from '@hono/node-server';
import { createDemoGateway, startupMessage } from '@svc/example-demo-actions';
import { Hono } from 'hono';

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
// The gateway sees the full path (/gateway/v1/...), so basePath makes its URLs right by itself.
const { gateway, config } = createDemoGateway(process.env, {
  basePath: '/gateway',
  loopbackOnly: true,
});

// An existing app with routes of its own...
const app = new Hono();
app.get('/', (c) => c.text('Acme back office. The meeting-assistant gateway is under /gateway.'));
app.get('/health', (c) => c.json({ ok: true }));
// ...and the gateway next to them: forward the untouched Web Request.
app.all('/gateway/*', (c) => gateway.fetch(c.req.raw));

const server = serve({ fetch: app.fetch, port: config.port, hostname: config.hostname }, (info) => {
  const host = info.address.includes(':') ? `[${info.address}]` : info.address;
  console.log(startupMessage(`http://${host}:${info.port}/gateway`, config));
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    void gateway.close().then(() => process.exit(0));
  });
}
