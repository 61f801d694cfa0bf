import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { checkGateway } from '@svc/gateway-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDEMPOTENCY_KEY } from '../src/index.ts';
import { type DemoServer, invokeDirectly, readJob, startDemoServer, TOKEN } from './demo-server.ts';

let server: DemoServer;
let client: Client;

beforeEach(async () => {
  server = await startDemoServer({ waitMs: 10_000, pollIntervalMs: 50 });
  client = await server.connect();
});
afterEach(() => server.close());

describe('tools/list', () => {
  it('lists every demo action with the manifest schema and annotations from its side effects', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'lookup-account',
      'generate-report',
      'issue-refund',
    ]);
    for (const action of server.gateway.manifest.actions) {
      const tool = tools.find((candidate) => candidate.name === action.id);
      expect(tool).toMatchObject({
        title: action.title,
        description: action.description,
        inputSchema: action.inputSchema,
      });
    }
    expect(tools.map((tool) => tool.annotations)).toEqual([
      expect.objectContaining({ readOnlyHint: true, destructiveHint: false, idempotentHint: true }),
      expect.objectContaining({ readOnlyHint: true, destructiveHint: false, idempotentHint: true }),
      expect.objectContaining({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
      }),
    ]);
    expect(tools[2]?._meta).toEqual({
      'svc/action': {
        executionMode: 'sync',
        requiresApproval: true,
        sideEffectLevel: 'destructive',
      },
    });
  });
});

describe('tools/call', () => {
  it('answers a sync action as the invoke does: outputText as text, data as structured content', async () => {
    const input = { accountId: 'acc_1001' };
    const direct = await invokeDirectly(server, 'lookup-account', input);
    const result = await client.callTool({ name: 'lookup-account', arguments: input });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: direct.body.outputText }]);
    expect(result.structuredContent).toEqual(direct.body.data);
    expect(result._meta?.['svc/invoke']).toMatchObject({
      status: 'completed',
      machineSummary: direct.body.machineSummary,
      dataSchemaVersion: '1',
    });
  });

  it('turns a rejected invoke into a tool error with the same code and message', async () => {
    const input = { accountId: 'acc_9999' };
    const direct = await invokeDirectly(server, 'lookup-account', input);
    const result = await client.callTool({ name: 'lookup-account', arguments: input });
    expect(direct.body.status).toBe('rejected');
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: direct.body.error });
    expect(result.content).toEqual([
      { type: 'text', text: 'account_not_found: No account acc_9999.' },
    ]);
  });

  it('turns invalid input into a tool error carrying the 422 error and its issues', async () => {
    const input = { accountId: 'nope', extra: 1 };
    const direct = await invokeDirectly(server, 'lookup-account', input);
    expect(direct.status).toBe(422);
    const result = await client.callTool({ name: 'lookup-account', arguments: input });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: direct.body.error, httpStatus: 422 });
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toMatch(/^invalid_input: /);
    expect(text).toContain('Expected an account id like acc_1001');
  });

  it('refuses an unknown tool with a protocol error, without invoking anything', async () => {
    await expect(client.callTool({ name: 'drop-tables', arguments: {} })).rejects.toThrow(
      /Unknown tool: drop-tables/,
    );
  });

  it('waits for an async job and answers its result, reporting progress on the way', async () => {
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'generate-report', arguments: { topic: 'Q3', delayMs: 300 } },
      undefined,
      { onprogress: ({ message }) => progress.push(message ?? '') },
    );
    const jobId = server.jobs.ids[0] ?? '';
    const job = await readJob(server, jobId);
    expect(job.status).toBe('completed');
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: job.outputText }]);
    expect(result.structuredContent).toEqual(job.data);
    expect(result._meta?.['svc/invoke']).toMatchObject({ status: 'completed', jobId });
    expect(progress[0]).toMatch(/^Collecting figures for "Q3"/);
  });

  it('answers with the job to follow when it outlasts the wait, without cancelling it', async () => {
    await server.close();
    server = await startDemoServer({ waitMs: 100, pollIntervalMs: 20 });
    client = await server.connect();
    const result = await client.callTool({
      name: 'generate-report',
      arguments: { topic: 'slow', delayMs: 5_000 },
    });
    const jobId = server.jobs.ids[0] ?? '';
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'accepted',
      job: {
        jobId,
        status: 'running',
        statusUrl: `${server.url}/v1/jobs/${jobId}`,
        cancelUrl: `${server.url}/v1/jobs/${jobId}/cancel`,
      },
    });
    expect((await readJob(server, jobId)).status).toBe('running');
    await fetch(`${server.url}/v1/jobs/${jobId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
  });

  it('cancels the job when the MCP client cancels the call', async () => {
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'generate-report', arguments: { topic: 'cancel me', delayMs: 30_000 } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort('changed my mind') },
    );
    await expect(call).rejects.toThrow();
    const jobId = server.jobs.ids[0] ?? '';
    await vi.waitFor(async () => expect((await readJob(server, jobId)).status).toBe('cancelled'));
  });
});

describe('MCP tasks', () => {
  it('marks the tools whose work outlives a request as task-capable', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.execution?.taskSupport])).toEqual([
      ['lookup-account', 'forbidden'],
      ['generate-report', 'optional'],
      ['issue-refund', 'optional'],
    ]);
  });

  it('runs an async action as a task: created at once, then the job result', async () => {
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'generate-report', arguments: { topic: 'as a task', delayMs: 200 } },
      undefined,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message);
    }
    const job = await readJob(server, server.jobs.ids[0] ?? '');
    expect(messages[0]?.type).toBe('taskCreated');
    expect(messages.at(-1)).toEqual({
      type: 'result',
      result: expect.objectContaining({
        content: [{ type: 'text', text: job.outputText }],
        structuredContent: job.data,
      }),
    });
  });

  it('cancels the job when the client cancels the task', async () => {
    const stream = client.experimental.tasks.callToolStream(
      { name: 'generate-report', arguments: { topic: 'cancel the task', delayMs: 30_000 } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    const first = await stream.next();
    const taskId = first.value?.type === 'taskCreated' ? first.value.task.taskId : '';
    expect(taskId).not.toBe('');
    await stream.return();
    const jobId = await vi.waitFor(() => {
      expect(server.jobs.ids).toHaveLength(1);
      return server.jobs.ids[0] ?? '';
    });
    await client.experimental.tasks.cancelTask(taskId);
    await vi.waitFor(async () => expect((await readJob(server, jobId)).status).toBe('cancelled'));
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  });

  it('ends a task whose job outlives its TTL completed, naming the job to follow', async () => {
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'generate-report', arguments: { topic: 'longer than the task', delayMs: 30_000 } },
      undefined,
      { task: { ttl: 1_500 } },
    )) {
      messages.push(message);
    }
    const jobId = server.jobs.ids[0] ?? '';
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: {
        structuredContent: { status: 'accepted', job: { jobId, status: 'running' } },
      },
    });
    const taskId = messages[0]?.type === 'taskCreated' ? messages[0].task.taskId : '';
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    // The job kept running: the caller follows it over the contract (here: cancels it).
    const cancelled = await fetch(`${server.url}/v1/jobs/${jobId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(cancelled.status).toBe(200);
  });

  it.each([
    [-5, 1_000],
    [0, 1_000],
    [2_500.5, 2_500],
    [86_400_000, 600_000],
  ])('grants a task asking for ttl %j a TTL of %j ms', async (ttl, granted) => {
    const stream = client.experimental.tasks.callToolStream(
      { name: 'issue-refund', arguments: { orderId: 'ord_2001', amountCents: 100 } },
      undefined,
      { task: { ttl } },
    );
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated', task: { ttl: granted } });
    await stream.return();
  });

  it('refuses a task for a tool that forbids tasks with -32601, and runs nothing', async () => {
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'lookup-account', arguments: { accountId: 'acc_1001' } },
      undefined,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message);
    }
    expect(messages).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          code: -32601,
          message: expect.stringContaining('Tool lookup-account does not run as a task'),
        }),
      },
    ]);
  });

  it('keeps an approval pending inside a task until the operator decides', async () => {
    const stream = client.experimental.tasks.callToolStream(
      { name: 'issue-refund', arguments: { orderId: 'ord_2002', amountCents: 700 } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    const collected = (async () => {
      const messages: unknown[] = [];
      for await (const message of stream) messages.push(message);
      return messages;
    })();
    const [pending] = await vi.waitFor(async () => {
      const page = await server.gateway.approvals.list();
      expect(page).toHaveLength(1);
      return page;
    });
    expect(server.jobs.ids).toEqual([]);
    await server.gateway.approvals.decide(pending?.approvalId ?? '', {
      approved: true,
      decidedBy: 'operator@example.com',
    });
    const messages = await collected;
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'Refunded 7.00 EUR on order ord_2002.' }] },
    });
  });
});

describe('approvals', () => {
  const refund = { orderId: 'ord_2001', amountCents: 1_500 };

  it('runs a destructive action only after an operator approves it', async () => {
    const call = client.callTool({ name: 'issue-refund', arguments: refund });
    const [pending] = await vi.waitFor(async () => {
      const page = await server.gateway.approvals.list();
      expect(page).toHaveLength(1);
      return page;
    });
    expect(pending?.input).toEqual(refund);
    expect(pending?.job).toBeUndefined();
    expect(server.jobs.ids).toEqual([]);
    await server.gateway.approvals.decide(pending?.approvalId ?? '', {
      approved: true,
      decidedBy: 'operator@example.com',
    });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: 'Refunded 15.00 EUR on order ord_2001.' },
    ]);
    expect(result.structuredContent).toMatchObject({ ...refund, currency: 'EUR' });
    expect(result._meta?.['svc/invoke']).toMatchObject({
      approvalId: pending?.approvalId,
      jobId: server.jobs.ids[0],
    });
  });

  it('never runs a denied action, and says so as a tool error', async () => {
    const call = client.callTool({ name: 'issue-refund', arguments: refund });
    const [pending] = await vi.waitFor(async () => {
      const page = await server.gateway.approvals.list();
      expect(page).toHaveLength(1);
      return page;
    });
    await server.gateway.approvals.decide(pending?.approvalId ?? '', {
      approved: false,
      decidedBy: 'operator@example.com',
      note: 'Duplicate request.',
    });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'approval_denied' } });
    expect(server.jobs.ids).toEqual([]);
  });

  it('names the pending approval when no operator decides within the wait; nothing runs', async () => {
    await server.close();
    server = await startDemoServer({ waitMs: 100, pollIntervalMs: 20 });
    client = await server.connect();
    const result = await client.callTool({ name: 'issue-refund', arguments: refund });
    const [pending] = await server.gateway.approvals.list();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'approval_required',
      approval: {
        approvalId: pending?.approvalId,
        statusUrl: `${server.url}/v1/approvals/${pending?.approvalId}`,
      },
    });
    expect(pending?.status).toBe('pending');
    expect(server.jobs.ids).toEqual([]);
  });

  it('passes _meta["svc/idempotencyKey"] on: a retried call gets the same approval, not a second', async () => {
    await server.close();
    server = await startDemoServer({ waitMs: 0 });
    client = await server.connect();
    const call = () =>
      client.callTool({
        name: 'issue-refund',
        arguments: refund,
        _meta: { [IDEMPOTENCY_KEY]: 'refund-ord_2001-1' },
      });
    const first = await call();
    const again = await call();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await server.gateway.approvals.list()).toHaveLength(1);
  });

  it('refuses at invoke time what no operator could approve (precheck), without an approval', async () => {
    const result = await client.callTool({
      name: 'issue-refund',
      arguments: { orderId: 'ord_2001', amountCents: 60_000 },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'refund_over_limit' } });
    expect(await server.gateway.approvals.list()).toEqual([]);
  });
});

describe('authentication and sessions', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    },
  };
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('answers 401 with the gateway error envelope without a token or with a wrong one', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const response = await post(headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
    await expect(server.connect('wrong')).rejects.toThrow();
  });

  it('authenticates a conditional request as any other (no 304 from the manifest check)', async () => {
    const manifest = await fetch(`${server.url}/v1/manifest`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const etag = manifest.headers.get('etag') ?? '';
    await manifest.body?.cancel();
    expect(etag).not.toBe('');
    const response = await post({ authorization: `Bearer ${TOKEN}`, 'if-none-match': etag });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
    await response.body?.cancel();
  });

  it('caps the sessions one caller keeps open (429 quota_exceeded with Retry-After)', async () => {
    await server.close();
    server = await startDemoServer({ sessions: { perCaller: 2 } });
    await server.connect();
    await server.connect();
    const third = await post({ authorization: `Bearer ${TOKEN}` });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('600');
    expect(await third.json()).toMatchObject({
      error: { code: 'quota_exceeded', retryable: true },
    });
  });
});

describe('next to the gateway contract', () => {
  it('the contract walk passes on the same process while MCP clients call it', async () => {
    const calls = Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        client.callTool({
          name: index % 2 ? 'lookup-account' : 'generate-report',
          arguments: index % 2 ? { accountId: 'acc_1002' } : { topic: `t${index}`, delayMs: 50 },
        }),
      ),
    );
    const report = await checkGateway({ url: server.url, token: TOKEN });
    const results = await calls;
    expect(report.checks.filter((check) => check.status === 'failed')).toEqual([]);
    expect(report.checks.filter((check) => check.status === 'passed').length).toBeGreaterThan(30);
    expect(results.every((result) => !result.isError)).toBe(true);
  }, 30_000);
});
