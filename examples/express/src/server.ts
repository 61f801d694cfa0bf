import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoGateway, readDemoConfig, startupMessage } from '@svc/example-demo-actions';
import { toNodeHandler } from '@svc/gateway-kit/node';
import express, { type ErrorRequestHandler } from 'express';

// An existing app: JSON bodies parsed for every route, and routes of its own.
const app = express();
app.use(express.json({ limit: '1mb' }));
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});
app.post('/api/notes', (req, res) => {
  res.status(201).json({ saved: req.body });
});

// Express strips the mount path from req.url, so the gateway is told its public URL. With PORT=0
// that is known only once the server listens: listen first, then mount the gateway.
// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
const { port: wantedPort, hostname } = readDemoConfig(process.env);
const server = createServer(app);
server.listen(wantedPort, hostname);
await once(server, 'listening');
const { address, port } = server.address() as AddressInfo;
const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;

const { gateway, config } = createDemoGateway(process.env, { url: `${origin}/gateway` });
// toNodeHandler uses the body express.json() already parsed.
app.use('/gateway', toNodeHandler(gateway));
// express.json() refuses bad bodies before the gateway sees them: answer those in the contract's
// error envelope too, rather than with Express's HTML error page.
const gatewayBodyErrors: ErrorRequestHandler = (error, _req, res, next) => {
  const type = (error as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    res.status(400).json({
      error: {
        code: 'malformed_json',
        message: 'The request body is not valid JSON.',
        retryable: false,
      },
    });
  } else if (type === 'entity.too.large') {
    res.status(413).json({
      error: {
        code: 'payload_too_large',
        message: 'The request body is too large.',
        retryable: false,
      },
    });
  } else next(error);
};
app.use('/gateway', gatewayBodyErrors);
console.log(startupMessage(config.url ?? `${origin}/gateway`, config));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    server.closeIdleConnections();
    void gateway.close().then(() => process.exit(0));
  });
}
