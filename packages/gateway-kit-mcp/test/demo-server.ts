// The demo gateway and its MCP endpoint on one node:http server, as examples/mcp serves them: the
// gateway through its own Node adapter, /mcp through @hono/node-server's request listener.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Gateway, MemoryJobStore } from '@svc/gateway-kit';
import { toNodeHandler } from '@svc/gateway-kit/node';
import type { NewJob } from '@svc/gateway-kit/store';
import { createDemoGateway, DEV_GATEWAY_TOKEN } from '../../../examples/demo-actions/src/index.ts';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '../src/index.ts';

export const TOKEN = DEV_GATEWAY_TOKEN;

/** A job store that remembers the ids of the jobs it created, so a test can read them. */
class RecordingJobStore extends MemoryJobStore {
  readonly ids: string[] = [];
  override async create(job: NewJob) {
    const result = await super.create(job);
    this.ids.push(result.job.jobId);
    return result;
  }
}

export interface DemoServer {
  readonly url: string;
  readonly gateway: Gateway;
  readonly mcp: McpHandler;
  readonly jobs: RecordingJobStore;
  /** An SDK client connected to /mcp over Streamable HTTP with `token` (the demo's by default). */
  connect(token?: string): Promise<Client>;
  close(): Promise<void>;
}

export async function startDemoServer(options: McpHandlerOptions = {}): Promise<DemoServer> {
  const jobs = new RecordingJobStore();
  const { gateway } = createDemoGateway({ GATEWAY_TOKEN: TOKEN }, { jobStore: jobs });
  const mcp = createMcpHandler(gateway, options);
  const serveMcp = getRequestListener(mcp.fetch);
  const serveGateway = toNodeHandler(gateway);
  const server: Server = createServer((req, res) => {
    if (req.url?.split('?')[0] === mcp.path) void serveMcp(req, res);
    else serveGateway(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: Client[] = [];
  return {
    url,
    gateway,
    mcp,
    jobs,
    async connect(token = TOKEN) {
      const client = new Client({ name: 'mcp-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await mcp.close();
      server.closeAllConnections();
      server.close();
      await gateway.idle();
      await gateway.close();
    },
  };
}

/** The gateway's own answer to an invoke of `actionId` with `input` (for comparisons). */
export async function invokeDirectly(
  server: DemoServer,
  actionId: string,
  input: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/v1/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      invocationId: `direct_${crypto.randomUUID()}`,
      meeting: { id: 'm', roomName: 'r' },
      session: { id: 's', mode: 'active' },
      action: { id: actionId, input },
      context: {},
      callbacks: {},
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Reads a job through the contract, as the hosted service would. */
export async function readJob(server: DemoServer, jobId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/v1/jobs/${jobId}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return (await response.json()) as Record<string, unknown>;
}
