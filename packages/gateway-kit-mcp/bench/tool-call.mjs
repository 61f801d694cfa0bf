// What a tool call costs over a direct invoke, on loopback: N sequential `lookup-account`-like
// calls through the MCP SDK client (Streamable HTTP, one session) and N direct POST /v1/invoke.
// Usage (after `pnpm build`): node bench/tool-call.mjs [calls=500]
import { once } from 'node:events';
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { toNodeHandler } from '@svc/gateway-kit/node';
import * as v from 'valibot';
import { createMcpHandler } from '../dist/index.js';

const calls = Number(process.argv[2] ?? 500);
const token = 'bench-token';
const lookup = defineAction({
  id: 'lookup-account',
  description: 'Finds an account.',
  input: v.strictObject({ accountId: v.string() }),
  run: ({ accountId }) => ({ outputText: `${accountId} is active.`, data: { accountId } }),
});
const gateway = createGateway({
  gateway: { id: 'bench', name: 'Bench' },
  actions: [lookup],
  auth: { tokens: [token] },
  logger: { warn() {}, error() {} },
});
const mcp = createMcpHandler(gateway);
const serveMcp = getRequestListener(mcp.fetch);
const serveGateway = toNodeHandler(gateway);
const server = createServer((req, res) =>
  req.url === mcp.path ? void serveMcp(req, res) : serveGateway(req, res),
);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${server.address().port}`;

const client = new Client({ name: 'bench', version: '1' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  }),
);

async function time(label, run) {
  for (let i = 0; i < 20; i += 1) await run(i); // warm-up
  const started = performance.now();
  for (let i = 0; i < calls; i += 1) await run(i);
  const ms = (performance.now() - started) / calls;
  console.log(`${label}: ${ms.toFixed(2)} ms per call (${calls} sequential calls)`);
}

await time('MCP tools/call (Streamable HTTP)', () =>
  client.callTool({ name: 'lookup-account', arguments: { accountId: 'acc_1' } }),
);
await time('direct POST /v1/invoke', async (i) => {
  const response = await fetch(`${url}/v1/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      invocationId: `bench_${i}`,
      meeting: { id: 'm', roomName: 'r' },
      session: { id: 's', mode: 'active' },
      action: { id: 'lookup-account', input: { accountId: 'acc_1' } },
      context: {},
      callbacks: {},
    }),
  });
  await response.json();
});

await client.close();
await mcp.close();
server.closeAllConnections();
server.close();
await gateway.close();
