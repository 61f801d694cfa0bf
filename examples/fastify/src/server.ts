import { createDemoGateway, readDemoConfig, startupMessage } from '@svc/example-demo-actions';
import { fastifyGateway, fastifyLogger } from '@svc/gateway-kit/fastify';
import { answerClientError, closeStalledConnections } from '@svc/gateway-kit/node';
import Fastify from 'fastify';

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
// LOG_LEVEL (default info) is Fastify's: one line per request; `debug` adds the gateway's routing.
const { port, hostname } = readDemoConfig(process.env);

// An existing app: Fastify's logger, its JSON parser and routes of its own.
// The server limits serve() sets (docs/examples.md, "Fastify"): a request must arrive whole within
// 30 s (Fastify's default is no limit; Node enforces it only with a headers timeout no longer than
// it), and what Node refuses before any route gets the contract's error envelope.
const app = Fastify({
  logger: { level: process.env.LOG_LEVEL?.trim() || 'info' },
  requestTimeout: 30_000,
  http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000 },
  clientErrorHandler: answerClientError,
});
app.server.maxConnections = 512;
app.get('/health', async () => ({ ok: true }));
app.post('/api/notes', async (request, reply) => reply.code(201).send({ saved: request.body }));

// The gateway under /gateway: the plugin strips the prefix and puts it into every URL it answers
// (manifest, statusUrl, cancelUrl), so the gateway needs neither `basePath` nor `url`. Bodies
// reach it unparsed; the app's own routes keep Fastify's parsers. Its log lines go to app.log.
// Callbacks connect only to addresses the URL policy allows (the plugin's pinned connections).
const { gateway, config } = createDemoGateway(process.env, { logger: fastifyLogger(app.log) });
// closeGateway: false: the signal handler below closes it once running jobs have ended.
await app.register(fastifyGateway, { gateway, prefix: '/gateway', closeGateway: false });

const origin = await app.listen({ port, host: hostname });
// A client that stops reading its answer does not keep the connection for ever.
closeStalledConnections(app.server);
console.log(startupMessage(config.url ?? `${origin}/gateway`, config));

// Ctrl-C or SIGTERM: stop taking requests (those in flight are answered), let async jobs still
// running end and send their callbacks (25 s at most), then close the gateway and exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await app.close();
    await Promise.race([gateway.idle(), new Promise((resolve) => setTimeout(resolve, 25_000))]);
    await gateway.close();
    process.exit(0);
  });
}
