import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoGateway, startupMessage } from '@svc/example-demo-actions';
import { toNodeHandler } from '@svc/gateway-kit/node';
import express from 'express';

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
const { gateway, config } = createDemoGateway(process.env);

const app = express();
// The gateway first, before any body parser: it reads the request body itself, so its limits,
// its order of checks (401 before anything about the body) and its error envelopes apply as under
// serve(). Express strips the mount path from req.url and keeps it in req.baseUrl, which the
// gateway puts into every URL it answers (GATEWAY_URL, when set, wins).
app.use('/gateway', toNodeHandler(gateway));

// An existing app: JSON bodies parsed for its own routes, and routes of its own.
app.use(express.json({ limit: '1mb' }));
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});
app.post('/api/notes', (req, res) => {
  res.status(201).json({ saved: req.body });
});

const server = createServer(app);
server.listen(config.port, config.hostname);
await once(server, 'listening');
const { address, port } = server.address() as AddressInfo;
const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
console.log(startupMessage(config.url ?? `${origin}/gateway`, config));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    server.closeIdleConnections();
    void gateway.close().then(() => process.exit(0));
  });
}
