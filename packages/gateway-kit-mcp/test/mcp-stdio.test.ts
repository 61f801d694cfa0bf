import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { demoActions } from '../../../examples/demo-actions/src/index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url));
const TOKEN = 'stdio-test-token';

let client: Client | undefined;
let stderr = '';

/** Starts the fixture as an MCP client does (a child process on stdio) and connects to it. */
async function connect(env: Record<string, string> = {}): Promise<{ contractUrl: string }> {
  stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE],
    env: {
      PATH: process.env.PATH ?? '',
      FIXTURE_GATEWAY_TOKEN: TOKEN,
      FIXTURE_MCP_TOKEN: TOKEN,
      ...env,
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  const contractUrl = await vi.waitFor(() => {
    const match = /contract at (\S+)/.exec(stderr);
    if (!match?.[1]) throw new Error('the fixture has not printed its address yet');
    return match[1];
  });
  return { contractUrl };
}

afterEach(async () => {
  await client?.close();
  client = undefined;
});

const readJob = async (contractUrl: string, jobId: string) =>
  (await (
    await fetch(`${contractUrl}/v1/jobs/${jobId}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json()) as { status: string };

describe('over stdio', () => {
  it('lists the demo actions and calls each one', async () => {
    await connect();
    const { tools } = await client!.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(demoActions.map((action) => action.id));

    const account = await client!.callTool({
      name: 'lookup-account',
      arguments: { accountId: 'acc_1002' },
    });
    expect(account.structuredContent).toEqual({
      accountId: 'acc_1002',
      name: 'Initech Ltd',
      plan: 'team',
      status: 'active',
    });

    const report = await client!.callTool({
      name: 'generate-report',
      arguments: { topic: 'stdio', delayMs: 60 },
    });
    expect(report.isError).toBeFalsy();
    expect(report.content).toEqual([
      { type: 'text', text: 'The report on "stdio" is ready: revenue is up 4% on last quarter.' },
    ]);

    const invalid = await client!.callTool({ name: 'generate-report', arguments: { topic: '' } });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({
      error: { code: 'invalid_input' },
      httpStatus: 422,
    });
  });

  it('names the pending approval of a destructive action; nothing runs without a decision', async () => {
    await connect({ FIXTURE_WAIT_MS: '0' });
    const refund = await client!.callTool({
      name: 'issue-refund',
      arguments: { orderId: 'ord_2002', amountCents: 100 },
    });
    expect(refund.isError).toBeFalsy();
    expect(refund.structuredContent).toMatchObject({ status: 'approval_required' });
    expect(refund._meta?.['svc/invoke']).not.toHaveProperty('jobId');
  });

  it('cancels the job when the client cancels the call', async () => {
    const { contractUrl } = await connect();
    const controller = new AbortController();
    const call = client!.callTool(
      { name: 'generate-report', arguments: { topic: 'cancel', delayMs: 30_000 } },
      undefined,
      {
        signal: controller.signal,
        onprogress: () => controller.abort('no longer needed'),
      },
    );
    await expect(call).rejects.toThrow();
    const jobId = /job (\S+)/.exec(stderr)?.[1] ?? '';
    expect(jobId).toMatch(/^job_/);
    await vi.waitFor(async () =>
      expect((await readJob(contractUrl, jobId)).status).toBe('cancelled'),
    );
  });

  it('refuses to start with a token the gateway does not accept', async () => {
    await expect(connect({ FIXTURE_MCP_TOKEN: 'wrong' })).rejects.toThrow();
    expect(stderr).toMatch(/serveStdio: token is a string the gateway refused \(HTTP 401\)/);
    expect(stderr).not.toContain('wrong');
  });
});
