// (cf) Our gateway through its Web-standard entry, `gateway.fetch`, served by @hono/node-server:
// the path Bun, Deno, Workers, Hono and Next.js users get (Request in, Response out), on Node.
import { createAdaptorServer } from '@hono/node-server';
import { announce } from './announce.mjs';
import { createBenchGateway } from './bench-gateway.mjs';

const gateway = createBenchGateway();
announce(
  createAdaptorServer({ fetch: gateway.fetch, serverOptions: { keepAliveTimeout: 65_000 } }),
);
