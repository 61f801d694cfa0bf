import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { checkGateway } from '@svc/gateway-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// examples/mcp started as an MCP client starts a local server (stdio, `--stdio`), which also
// serves the contract and MCP over Streamable HTTP: both protocols, one process.
const TOKEN = 'e2e-mcp-gateway-token';
const OPERATOR_TOKEN = 'e2e-mcp-operator-token';
const EXAMPLE = fileURLToPath(new URL('../../mcp', import.meta.url));

let stdio: Client;
let http: Client;
let url = '';
let output = '';

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['src/server.ts', '--stdio'],
    cwd: EXAMPLE,
    env: { PATH: process.env.PATH ?? '', PORT: '0', GATEWAY_TOKEN: TOKEN, OPERATOR_TOKEN },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  stdio = new Client({ name: 'e2e-stdio', version: '1.0.0' });
  await stdio.connect(transport);
  url = await vi.waitFor(
    () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match?.[1]) throw new Error(`no "listening on" line yet:\n${output}`);
      return match[1];
    },
    { timeout: 20_000 },
  );
  http = new Client({ name: 'e2e-http', version: '1.0.0' });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
}, 30_000);

afterAll(async () => {
  await http?.close();
  await stdio?.close(); // closes the example's stdin: it shuts down
});

const operator = (path: string, init: RequestInit = {}) =>
  fetch(`${url}/operator/api${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      'content-type': 'application/json',
    },
  });

describe('examples/mcp', () => {
  it('lists the same tools over stdio and Streamable HTTP', async () => {
    const [overStdio, overHttp] = await Promise.all([stdio.listTools(), http.listTools()]);
    expect(overStdio.tools.map((tool) => tool.name)).toEqual([
      'lookup-account',
      'generate-report',
      'issue-refund',
    ]);
    expect(overHttp.tools).toEqual(overStdio.tools);
  });

  it('runs a refund over MCP only once the operator approved it on the approvals page', async () => {
    const call = http.callTool({
      name: 'issue-refund',
      arguments: { orderId: 'ord_2003', amountCents: 500 },
    });
    const pending = await vi.waitFor(async () => {
      const { approvals } = (await (await operator('/approvals')).json()) as {
        approvals: Array<{ approvalId: string; job?: unknown; input: unknown }>;
      };
      expect(approvals).toHaveLength(1);
      return approvals[0]!;
    });
    expect(pending.input).toEqual({ orderId: 'ord_2003', amountCents: 500 });
    expect(pending.job).toBeUndefined();
    const decided = await operator(`/approvals/${pending.approvalId}/decision`, {
      method: 'POST',
      body: JSON.stringify({ approved: true }),
    });
    expect(decided.status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: 'Refunded 5.00 EUR on order ord_2003.' },
    ]);
  });

  it('passes the contract walk on the same process while MCP clients call it', async () => {
    const calls = Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 ? stdio : http).callTool({
          name: index % 3 ? 'lookup-account' : 'generate-report',
          arguments:
            index % 3 ? { accountId: 'acc_1001' } : { topic: `walk ${index}`, delayMs: 100 },
        }),
      ),
    );
    const report = await checkGateway({ url, token: TOKEN });
    expect(report.checks.filter((check) => check.status === 'failed')).toEqual([]);
    expect((await calls).filter((result) => result.isError)).toEqual([]);
  }, 30_000);

  it('refuses a valid token sent under a foreign Host on loopback: /v1/manifest and /mcp 403', async () => {
    const { port } = new URL(url);
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'e', version: '1' },
      },
    });
    const send = (path: string, host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const post = path === '/mcp';
        const sent = request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: post ? 'POST' : 'GET',
            headers: {
              host,
              authorization: `Bearer ${TOKEN}`,
              ...(post
                ? {
                    'content-type': 'application/json',
                    accept: 'application/json, text/event-stream',
                  }
                : {}),
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              body += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        sent.on('error', reject);
        sent.end(post ? initialize : undefined);
      });
    const manifest = await send('/v1/manifest', 'evil.example');
    expect(manifest.status).toBe(403);
    expect(JSON.parse(manifest.body)).toMatchObject({ error: { code: 'forbidden_host' } });
    const mcp = await send('/mcp', 'evil.example');
    expect(mcp.status).toBe(403);
    expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await send('/v1/manifest', host)).status, host).toBe(200);
      expect((await send('/mcp', host)).status, host).toBe(200);
    }
  });

  it('answers 408 to an authenticated body trickled to /mcp within the documented 30 s', async () => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    const started = Date.now();
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
        'Content-Length: 100000\r\n\r\n',
    );
    const trickle = setInterval(() => socket.write('{'), 1_000);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    await once(socket, 'close');
    clearInterval(trickle);
    const seconds = (Date.now() - started) / 1_000;
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(seconds).toBeGreaterThanOrEqual(29);
    expect(seconds).toBeLessThan(33);
  }, 45_000);
});
