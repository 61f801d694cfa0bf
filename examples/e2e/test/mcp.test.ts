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
});
