// Runtime suite for Bun: `bun test` (see package.json "test:bun"). The MCP handler and the gateway
// served by Bun.serve from one fetch function, called with the MCP SDK's own client.
// @ts-nocheck -- checked by Bun at run time, not by the package's tsc project.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MemoryJobStore } from '@svc/gateway-kit';
import {
  createDemoGateway,
  DEV_GATEWAY_TOKEN,
} from '../../../../examples/demo-actions/src/index.ts';
import { createMcpHandler } from '../../src/index.ts';

const jobIds = [];
class RecordingJobStore extends MemoryJobStore {
  async create(job) {
    const result = await super.create(job);
    jobIds.push(result.job.jobId);
    return result;
  }
}

const { gateway } = createDemoGateway(
  { GATEWAY_TOKEN: DEV_GATEWAY_TOKEN },
  { jobStore: new RecordingJobStore() },
);
const mcp = createMcpHandler(gateway, { waitMs: 200, pollIntervalMs: 20 });
let server: { readonly port: number; stop(force: boolean): void };
let client: Client;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 60,
    fetch: (request) =>
      new URL(request.url).pathname === mcp.path ? mcp.fetch(request) : gateway.fetch(request),
  });
  client = new Client({ name: 'bun-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${DEV_GATEWAY_TOKEN}` } },
    }),
  );
});

afterAll(async () => {
  await client.close();
  await mcp.close();
  server.stop(true);
  await gateway.close();
});

const readJob = async (jobId) =>
  (
    await fetch(`http://127.0.0.1:${server.port}/v1/jobs/${jobId}`, {
      headers: { authorization: `Bearer ${DEV_GATEWAY_TOKEN}` },
    })
  ).json();

test('lists the demo actions with their schemas and annotations', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => [tool.name, tool.annotations.destructiveHint])).toEqual([
    ['lookup-account', false],
    ['generate-report', false],
    ['issue-refund', true],
  ]);
  expect(tools[0].inputSchema).toEqual(gateway.manifest.actions[0].inputSchema);
});

test('calls a sync action, an async one, and refuses invalid input', async () => {
  const account = await client.callTool({
    name: 'lookup-account',
    arguments: { accountId: 'acc_1003' },
  });
  expect(account.structuredContent).toMatchObject({ status: 'suspended' });
  const report = await client.callTool({
    name: 'generate-report',
    arguments: { topic: 'bun', delayMs: 30 },
  });
  expect(report.structuredContent).toMatchObject({ topic: 'bun', revenueChangePercent: 4 });
  const invalid = await client.callTool({ name: 'lookup-account', arguments: {} });
  expect(invalid.isError).toBe(true);
  expect(invalid.structuredContent.error.code).toBe('invalid_input');
});

test('an approval nobody decided is named, and nothing runs', async () => {
  const before = jobIds.length;
  const refund = await client.callTool({
    name: 'issue-refund',
    arguments: { orderId: 'ord_2001', amountCents: 100 },
  });
  expect(refund.structuredContent.status).toBe('approval_required');
  const [pending] = await gateway.approvals.list();
  expect(pending.status).toBe('pending');
  expect(jobIds.length).toBe(before);
});

test('a cancelled call cancels its job', async () => {
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'generate-report', arguments: { topic: 'stop', delayMs: 30_000 } },
    undefined,
    { signal: controller.signal, onprogress: () => controller.abort('stop') },
  );
  await expect(call).rejects.toThrow();
  const jobId = jobIds.at(-1);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if ((await readJob(jobId)).status === 'cancelled') break;
    await Bun.sleep(20);
  }
  expect((await readJob(jobId)).status).toBe('cancelled');
});
