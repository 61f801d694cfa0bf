// The demo catalogue over both protocols from one process:
//   node src/server.ts          Gateway Contract v1 at /v1/*, MCP (Streamable HTTP) at /mcp,
//                               the approvals page at /operator/
//   node src/server.ts --stdio  the same HTTP server, plus MCP over stdin/stdout for a local
//                               MCP client that starts this process (logs go to stderr)
// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL, OPERATOR_TOKEN, MCP_SESSIONS_PER_CALLER: see
// docs/examples.md and docs/mcp.md.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createDemoGateway, DEV_OPERATOR_TOKEN, startupMessage } from '@svc/example-demo-actions';
import { createOperatorHandler } from '@svc/example-node/src/operator.ts';
import {
  closeStalledConnections,
  resolveHostWithNodeDns,
  toNodeHandler,
} from '@svc/gateway-kit/node';
import { createMcpHandler } from '@svc/gateway-kit-mcp';
import { serveStdio } from '@svc/gateway-kit-mcp/stdio';

const stdio = process.argv.includes('--stdio');
// On stdio, stdout carries the protocol: everything else is written to stderr.
const log = (message: string): void => {
  (stdio ? process.stderr : process.stdout).write(`${message}\n`);
};

const { gateway, config } = createDemoGateway(process.env, { resolveHost: resolveHostWithNodeDns });
const operatorToken = process.env.OPERATOR_TOKEN?.trim() || DEV_OPERATOR_TOKEN;
const operator = createOperatorHandler(gateway, { token: operatorToken });
// On a loopback address, /mcp refuses requests naming another host (DNS rebinding); the gateway's
// routes do the same through toNodeHandler (docs/security.md).
const loopback = /^(127(\.\d{1,3}){3}|::1|localhost)$/.test(config.hostname);
// The per-caller session cap (default 16) can be raised for a client that opens many sessions
// without closing them, such as the MCP conformance suite (scripts/mcp-conformance.mjs).
const perCaller = Number(process.env.MCP_SESSIONS_PER_CALLER?.trim() || 16);
// A tool call waits up to 30 s for a job or an operator's decision (docs/mcp.md).
const mcp = createMcpHandler(gateway, {
  waitMs: 30_000,
  loopbackOnly: loopback,
  sessions: { perCaller },
});
const serveMcp = getRequestListener(mcp.fetch);
const serveGateway = toNodeHandler(gateway);

// One server: MCP at /mcp, the approvals page under /operator, the gateway contract elsewhere.
// The bounds `serve()` sets (docs/security.md, "Node adapter limits"), on this hand-made server:
// Node checks the two request timeouts once a second instead of every 30 s.
const server = createServer(
  {
    requestTimeout: 30_000,
    headersTimeout: 10_000,
    keepAliveTimeout: 65_000,
    connectionsCheckingInterval: 1_000,
  },
  (req, res) => {
    if (req.url?.split('?')[0] === mcp.path) void serveMcp(req, res);
    else if (!operator(req, res)) serveGateway(req, res);
  },
);
server.maxConnections = 512;
// An answer its client does not take within 30 s (a stalled reader of a POST or an SSE stream)
// closes the connection: Node keeps it, and what it holds, for ever.
closeStalledConnections(server);
server.listen(config.port, config.hostname);
await once(server, 'listening');

const { port } = server.address() as AddressInfo;
const host = config.hostname.includes(':') ? `[${config.hostname}]` : config.hostname;
const url = `http://${host}:${port}`;
log(`MCP (Streamable HTTP): ${url}${mcp.path}`);
log(`Approvals page: ${url}/operator/`);
if (stdio) {
  await serveStdio(gateway, { token: config.token, url });
  log('MCP (stdio): serving on stdin/stdout');
}
log(startupMessage(url, config));

const shutdown = (): void => {
  server.close();
  server.closeAllConnections();
  void mcp
    .close()
    .then(() => gateway.close())
    .then(() => process.exit(0));
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, shutdown);
// A stdio client ends the session by closing our stdin.
if (stdio) process.stdin.once('end', shutdown);
