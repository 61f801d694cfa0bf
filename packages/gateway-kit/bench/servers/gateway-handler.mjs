// (cn) The same gateway under a node:http server of your own: `createServer(toNodeHandler(gateway))`
// with the limits serve() sets, from the package's dist. What the Fastify mount (e) shares its
// adapter code with, so e/cn is the mount's own cost (issue 21); serve() (c) no longer runs on
// node:http.
import { createServer } from 'node:http';
import { answerClientError, closeStalledConnections, toNodeHandler } from '../../dist/node.js';
import { announce } from './announce.mjs';
import { createBenchGateway } from './bench-gateway.mjs';

const server = createServer(
  {
    requestTimeout: 30_000,
    headersTimeout: 10_000,
    keepAliveTimeout: 65_000,
    connectionsCheckingInterval: 1_000,
    requireHostHeader: false,
  },
  toNodeHandler(createBenchGateway()),
);
server.maxConnections = 512;
server.on('clientError', answerClientError);
closeStalledConnections(server);
announce(server);
