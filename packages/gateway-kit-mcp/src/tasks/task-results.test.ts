import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createGateway, defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { afterEach, expect, it } from 'vitest';
import { createMcpHandler } from '../http/create-mcp-handler.ts';

// An async action whose result is about 200 KB of JSON: under the gateway's 256 KiB result limit.
const rows = Array.from({ length: 2_000 }, (_, i) => ({ i, text: 'x'.repeat(80) }));
const bulk = defineAction({
  id: 'bulk',
  description: 'Answers about 200 KB of rows, as a job.',
  input: v.strictObject({}),
  executionMode: 'async',
  run: () => ({ outputText: 'Rows ready.', data: { rows } }),
});

const gateway = createGateway({
  gateway: { id: 'tasks-unit', name: 'Tasks unit' },
  actions: [bulk],
  auth: { tokens: ['token-a'] },
});
const mcp = createMcpHandler(gateway, { pollIntervalMs: 10 });

afterEach(async () => {
  await mcp.close();
  await gateway.close();
});

it('keeps at most 2 MiB of task results per session; a result past it names the job that keeps it', async () => {
  const client = new Client({ name: 'in-process', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://gateway.test/mcp'), {
      requestInit: { headers: { authorization: 'Bearer token-a' } },
      fetch: (url, init) => mcp.fetch(new Request(url, init)),
    }),
  );
  const results = [];
  for (let n = 0; n < 11; n++) {
    let taskId = '';
    const stream = client.experimental.tasks.callToolStream(
      { name: 'bulk', arguments: {} },
      undefined,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream)
      if (message.type === 'taskCreated') taskId = message.task.taskId;
    // What the task keeps, completed or failed (the SDK's stream reports only "failed").
    results.push(await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema));
  }
  // Ten results of about 200 KB fit in 2 MiB, and are kept whole.
  for (const result of results.slice(0, 10)) {
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ rows });
  }
  const refused = results[10]!;
  const jobId = (refused._meta?.['svc/invoke'] as { jobId?: string } | undefined)?.jobId ?? '';
  expect(jobId).not.toBe('');
  expect(refused).toMatchObject({
    isError: true,
    structuredContent: {
      error: { code: 'result_too_large', details: { maxBytes: 2 * 1024 * 1024, jobId } },
    },
  });
  expect(JSON.stringify(refused).length).toBeLessThan(2_000);
  // The job keeps the result: read over the contract, as the error says.
  expect((refused.content as { text: string }[])[0]?.text).toContain(`/v1/jobs/${jobId}`);
  const job = await gateway.fetch(
    new Request(`http://gateway.test/v1/jobs/${jobId}`, {
      headers: { authorization: 'Bearer token-a' },
    }),
  );
  expect(await job.json()).toMatchObject({ status: 'completed', data: { rows } });
  await client.close();
});
