// (e) The same gateway mounted in a Fastify 5 app with @svc/gateway-kit/fastify, under a prefix
// as apps mount it. Fastify as its docs recommend for speed: logger off (its default), no plugins
// beyond the gateway's; keep-alive as long as the other servers'.
import Fastify from 'fastify';
import { fastifyGateway } from '../../dist/fastify.js';
import { reportPort } from './announce.mjs';
import { createBenchGateway } from './bench-gateway.mjs';

export const PREFIX = '/gateway';

const app = Fastify({ logger: false, keepAliveTimeout: 65_000 });
await app.register(fastifyGateway, {
  gateway: createBenchGateway(`http://127.0.0.1${PREFIX}`),
  prefix: PREFIX,
});
await app.listen({ port: 0, host: '127.0.0.1' });
reportPort(app.server.address().port, PREFIX);
