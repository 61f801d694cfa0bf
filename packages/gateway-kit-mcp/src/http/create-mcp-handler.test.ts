import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createGateway, defineAction, type Gateway, type GatewayOptions } from '@svc/gateway-kit';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isMcpConfigError, McpConfigError } from '../mcp-config-error.ts';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from './create-mcp-handler.ts';

const echo = defineAction({
  id: 'echo',
  title: 'Echo',
  description: 'Answers its input.',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }, { principal }) => ({ outputText: text, data: { text, principal: principal.id } }),
});

const wipe = defineAction({
  id: 'wipe',
  description: 'Wipes a folder (needs approval).',
  input: v.strictObject({ folder: v.string() }),
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  run: ({ folder }) => ({ outputText: `Wiped ${folder}.` }),
});

/** A promise with its `resolve`, settled from elsewhere. */
function deferred(): { promise: Promise<unknown>; resolve: (value?: unknown) => void } {
  let resolve: (value?: unknown) => void = () => {};
  const promise = new Promise<unknown>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Resolves when `slow` starts running, and when its run is aborted. */
let slowStarted = deferred();
let slowAborted = deferred();
const slow = defineAction({
  id: 'slow',
  description: 'Runs until it is aborted.',
  input: v.strictObject({}),
  timeoutMs: 10_000,
  run: (_, { signal }) =>
    new Promise((_resolve, fail) => {
      slowStarted.resolve();
      signal.addEventListener('abort', () => {
        slowAborted.resolve(signal.reason);
        fail(signal.reason);
      });
    }),
});

let gateway: Gateway;
let mcp: McpHandler;

function start(
  options: Parameters<typeof createMcpHandler>[1] = {},
  gatewayOptions: Partial<GatewayOptions> = {},
): void {
  gateway = createGateway({
    gateway: { id: 'mcp-unit', name: 'MCP unit' },
    actions: [echo, wipe, slow],
    ...gatewayOptions,
    auth: {
      tokens: [
        { token: 'token-a', principal: { id: 'alice' } },
        { token: 'token-b', principal: { id: 'bob' } },
      ],
    },
  });
  mcp = createMcpHandler(gateway, options);
}

afterEach(async () => {
  vi.useRealTimers();
  await mcp.close();
  await gateway.close();
});

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const initialize = rpc(1, 'initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'unit', version: '1' },
});

function post(token: string, body: unknown, sessionId?: string): Promise<Response> {
  return mcp.fetch(
    new Request('http://gateway.test/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body: JSON.stringify(body),
    }),
  );
}

async function open(token: string): Promise<string> {
  const response = await post(token, initialize);
  expect(response.status).toBe(200);
  await response.body?.cancel();
  const sessionId = response.headers.get('mcp-session-id') ?? '';
  await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
  return sessionId;
}

/** The JSON-RPC messages of an SSE answer (the transport streams one `data:` line per message). */
async function messages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  const data = text.split('\n').filter((line) => line.startsWith('data: {'));
  if (data.length === 0) return [JSON.parse(text) as Record<string, unknown>];
  return data.map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

/** The JSON-RPC answer of an SSE answer (not the notifications sent before it). */
async function message(response: Response): Promise<Record<string, unknown>> {
  const all = await messages(response);
  return all.find((one) => 'id' in one) ?? all[0]!;
}

/** The first `count` messages of an SSE answer, read as they arrive (the stream stays open). */
async function firstMessages(
  response: Response,
  count: number,
): Promise<Record<string, unknown>[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const found: Record<string, unknown>[] = [];
  let text = '';
  while (found.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    const lines = text.split('\n');
    text = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('data: {')) found.push(JSON.parse(line.slice('data: '.length)));
    }
  }
  reader.releaseLock();
  return found;
}

/** The `notifications/message` params of an SSE answer. */
async function logged(response: Response): Promise<Record<string, unknown>[]> {
  return (await messages(response))
    .filter((one) => one.method === 'notifications/message')
    .map((one) => one.params as Record<string, unknown>);
}

/** An initialize with the given `Authorization` header, exactly as written. */
function initializeAs(authorization: string): Promise<Response> {
  return mcp.fetch(
    new Request('http://gateway.test/mcp', {
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    }),
  );
}

/** The SDK's client over Streamable HTTP, straight into `mcp.fetch` (no socket). */
async function sdkClient(token: string): Promise<Client> {
  const client = new Client({ name: 'in-process', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://gateway.test/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (url, init) => mcp.fetch(new Request(url, init)),
    }),
  );
  return client;
}

describe('createMcpHandler', () => {
  it('aborts a sync run when the client cancels the call, and keeps a busy session open', async () => {
    slowStarted = deferred();
    slowAborted = deferred();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    start({ sessions: { idleMs: 1_000 } });
    const client = await sdkClient('token-a');
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await slowStarted.promise;
    // Idle for longer than idleMs, but with a call in flight: not closed by a new session.
    vi.setSystemTime(Date.now() + 5_000);
    await open('token-b');
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await slowAborted.promise;
    expect((await client.listTools()).tools).toHaveLength(3);
    await client.close();
  });

  it('calls the action as the principal of the token that made the call', async () => {
    start();
    const alice = await open('token-a');
    const bob = await open('token-b');
    const call = (token: string, sessionId: string) =>
      post(token, rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), sessionId);
    expect(await message(await call('token-a', alice))).toMatchObject({
      result: { structuredContent: { text: 'hi', principal: 'alice' } },
    });
    expect(await message(await call('token-b', bob))).toMatchObject({
      result: { structuredContent: { text: 'hi', principal: 'bob' } },
    });
  });

  it("answers the gateway's quota refusal as a retryable tool error with Retry-After", async () => {
    start({ waitMs: 0 }, { quotas: { pendingApprovals: 1 } });
    const alice = await open('token-a');
    const call = (id: number, folder: string) =>
      post('token-a', rpc(id, 'tools/call', { name: 'wipe', arguments: { folder } }), alice);
    expect(await message(await call(2, '/tmp/a'))).toMatchObject({
      result: { structuredContent: { status: 'approval_required' } },
    });
    const refused = (await message(await call(3, '/tmp/b'))) as {
      result: { isError: boolean; structuredContent: Record<string, unknown> };
    };
    expect(refused.result.isError).toBe(true);
    expect(refused.result.structuredContent).toMatchObject({
      error: { code: 'quota_exceeded', retryable: true },
      httpStatus: 429,
      retryAfterSeconds: expect.any(Number),
    });
    expect(await gateway.approvals.list()).toHaveLength(1);
  });

  it("answers the gateway's body limit as a tool error (413 payload_too_large)", async () => {
    start({}, { maxBodyBytes: 2_048 });
    const alice = await open('token-a');
    const big = rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(4_096) } });
    expect(await message(await post('token-a', big, alice))).toMatchObject({
      result: {
        isError: true,
        structuredContent: { error: { code: 'payload_too_large' }, httpStatus: 413 },
      },
    });
  });

  it('answers at most 32 requests of a session at once; the others get a JSON-RPC error at once', async () => {
    start({ waitMs: 60_000 });
    const alice = await open('token-a');
    // 40 calls that each wait for an operator (one approval: same idempotency key), in one batch.
    const call = (id: number) =>
      rpc(id, 'tools/call', {
        name: 'wipe',
        arguments: { folder: '/tmp/a' },
        _meta: { 'svc/idempotencyKey': 'wipe-a' },
      });
    const batch = await post(
      'token-a',
      Array.from({ length: 40 }, (_, index) => call(index + 1)),
      alice,
    );
    const refused = await firstMessages(batch, 8);
    expect(refused.map((one) => one.id)).toEqual([33, 34, 35, 36, 37, 38, 39, 40]);
    expect(refused[0]).toMatchObject({
      error: {
        code: -32600,
        message: expect.stringContaining('At most 32 requests of one MCP session'),
        data: { quota: 'requestsInFlight', limit: 32, retryable: true },
      },
    });
    const echo = (id: number, sessionId: string) =>
      post(
        'token-a',
        rpc(id, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
        sessionId,
      );
    expect(await message(await echo(41, alice))).toMatchObject({ id: 41, error: { code: -32600 } });
    // The budget is the session's: another session of the same caller is answered.
    expect(await message(await echo(1, await open('token-a')))).toMatchObject({
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    // An id already in flight is refused, and nothing runs for it.
    expect(await message(await post('token-a', call(2), alice))).toMatchObject({
      id: 2,
      error: { code: -32600, message: expect.stringContaining('already in flight') },
    });
    expect(await gateway.approvals.list()).toHaveLength(1);
    // A call the client cancels is no longer counted (the server sends it no answer).
    await post(
      'token-a',
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      alice,
    );
    expect(await message(await echo(42, alice))).toMatchObject({
      id: 42,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    // Cancelling one call twice frees one place, not two.
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } };
    await post('token-a', cancel, alice);
    await post('token-a', cancel, alice);
    // 30 in flight now (2 and 4 … 32): 43 and 44 run (a log notification each), 45 is refused.
    const three = await post('token-a', [call(43), call(44), call(45)], alice);
    const answers = (await firstMessages(three, 3)).filter((one) => 'id' in one);
    expect(answers).toMatchObject([{ id: 45, error: { code: -32600 } }]);
  });

  it('answers arguments nested too deeply to serialize as the gateway answers deep bodies', async () => {
    start();
    const alice = await open('token-a');
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":${deep}}}`;
    const shallow = rpc(3, 'tools/call', {
      name: 'echo',
      arguments: JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`),
    });
    const refusal = {
      isError: true,
      structuredContent: {
        error: { code: 'malformed_json', message: 'The request body nests too deeply.' },
        httpStatus: 400,
      },
    };
    // 100 levels: the gateway's own refusal; 10 000 levels: the same, not an internal error.
    expect(await message(await post('token-a', shallow, alice))).toMatchObject({ result: refusal });
    const response = await mcp.fetch(
      new Request('http://gateway.test/mcp', {
        method: 'POST',
        headers: {
          authorization: 'Bearer token-a',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'mcp-session-id': alice,
        },
        body,
      }),
    );
    expect(await message(response)).toMatchObject({ id: 2, result: refusal });
  });

  it("treats another caller's session as unknown: 404, nothing runs", async () => {
    start();
    const alice = await open('token-a');
    const response = await post(
      'token-b',
      rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
      alice,
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: 'Session not found' } });
  });

  it('caps sessions in all: 503 mcp_sessions_full with Retry-After', async () => {
    start({ sessions: { max: 2, idleMs: 5_000 } });
    await open('token-a');
    await open('token-b');
    const third = await post('token-a', initialize);
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(await third.json()).toEqual({
      error: {
        code: 'mcp_sessions_full',
        message: 'Too many MCP sessions are open.',
        retryable: true,
      },
    });
  });

  it('keeps a budget given as undefined (`{ perCaller: config.perCaller }`) at its default', async () => {
    // Spread over the defaults, `undefined` lifted the budget: every initialize was admitted.
    // (A JavaScript caller, or a config object typed loosely: the type does not allow it.)
    start({ sessions: { max: undefined, perCaller: undefined, idleMs: undefined } as never });
    const statuses: number[] = [];
    for (let i = 0; i < 18; i++) {
      const answer = await post('token-a', initialize);
      await answer.body?.cancel();
      statuses.push(answer.status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(16);
    expect(statuses.slice(16)).toEqual([429, 429]);
  });

  it('keeps to the budgets under concurrent initializes', async () => {
    start({ sessions: { perCaller: 2 } });
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('token-a', initialize)));
    await Promise.all(answers.map((answer) => answer.body?.cancel()));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 429, 429, 429, 429]);
  });

  it('counts sessions per principal: one token under 1 000 spellings of the scheme and spaces opens 16', async () => {
    // The documented defaults: 16 per caller, 1 000 in all (one token used to open 983).
    start();
    const schemes = ['Bearer', 'bearer', 'BEARER', 'bEaReR', 'BeArEr', 'beaRER'];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1_000; i++) {
      const scheme = schemes[i % schemes.length]!;
      const spaces = ' '.repeat(1 + (i % 40)) + (i % 3 === 0 ? '\t ' : '');
      const answer = await initializeAs(`${scheme}${spaces}token-a${' '.repeat(i % 5)}`);
      await answer.body?.cancel();
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 16, 429: 984 });
    // Another principal still opens its own.
    const bob = await initializeAs('Bearer token-b');
    await bob.body?.cancel();
    expect(bob.status).toBe(200);
  });

  it('counts two tokens of one principal as one caller', async () => {
    start({ sessions: { perCaller: 2 } }, {});
    gateway = createGateway({
      gateway: { id: 'rotation', name: 'Rotation' },
      actions: [echo],
      auth: { tokens: ['old-token', 'new-token'] },
    });
    mcp = createMcpHandler(gateway, { sessions: { perCaller: 2 } });
    const answers = [];
    for (const token of ['old-token', 'new-token', 'old-token', 'new-token']) {
      const answer = await initializeAs(`Bearer ${token}`);
      await answer.body?.cancel();
      answers.push(answer.status);
    }
    expect(answers).toEqual([200, 200, 429, 429]);
  });

  it('lets the principal use its session under another spelling of its token', async () => {
    start();
    const alice = await open('token-a');
    const response = await mcp.fetch(
      new Request('http://gateway.test/mcp', {
        method: 'POST',
        headers: {
          authorization: 'bearer    token-a',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'mcp-session-id': alice,
        },
        body: JSON.stringify(rpc(2, 'tools/list')),
      }),
    );
    expect(response.status).toBe(200);
    expect(await message(response)).toMatchObject({ result: { tools: expect.any(Array) } });
  });

  it('declares logging, honours logging/setLevel, and logs refusals of the caller’s own calls without input', async () => {
    start({}, { maxBodyBytes: 2_048 });
    const alice = await open('token-a');
    const secret = `input-${'s'.repeat(4_096)}`;
    const big = (id: number) =>
      rpc(id, 'tools/call', { name: 'echo', arguments: { text: secret } });
    const warnings = await logged(await post('token-a', big(2), alice));
    expect(warnings).toEqual([
      {
        level: 'warning',
        logger: 'gateway',
        data: expect.objectContaining({
          event: 'gateway_refused',
          actionId: 'echo',
          httpStatus: 413,
          code: 'payload_too_large',
        }),
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('input-');
    expect(JSON.stringify(warnings)).not.toContain('token-a');
    expect(
      await message(await post('token-a', rpc(3, 'logging/setLevel', { level: 'error' }), alice)),
    ).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
    expect(await logged(await post('token-a', big(4), alice))).toEqual([]);
  });

  it('sends job progress as notifications/message', async () => {
    // The job finishes only once the client has the progress notification: the bridge's polls
    // must find the job running with its progress, however slow the machine.
    const seen = deferred();
    const steps = defineAction({
      id: 'steps',
      description: 'Reports progress, then finishes.',
      input: v.strictObject({}),
      executionMode: 'async',
      run: async (_, { job, signal }) => {
        await job?.progress({ outputText: 'Half way.' });
        signal.addEventListener('abort', () => seen.resolve()); // a failed test ends the job
        await seen.promise;
        return { outputText: 'Done.' };
      },
    });
    gateway = createGateway({
      gateway: { id: 'progress', name: 'Progress' },
      actions: [steps],
      auth: { tokens: ['token-a'] },
    });
    mcp = createMcpHandler(gateway, { pollIntervalMs: 50 });
    const session = await open('token-a');
    const answer = await post(
      'token-a',
      rpc(2, 'tools/call', { name: 'steps', arguments: {} }),
      session,
    );
    // Read as it streams: the progress notification releases the job, then the answer ends.
    let text = '';
    const decoder = new TextDecoder();
    const reader = answer.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += decoder.decode(read.value, { stream: true });
      if (text.includes('"job_progress"')) seen.resolve();
    }
    const events = (await logged(new Response(text))).map(
      (params) => params.data as Record<string, unknown>,
    );
    expect(events).toContainEqual(
      expect.objectContaining({ event: 'job_accepted', actionId: 'steps' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ event: 'job_progress', actionId: 'steps', message: 'Half way.' }),
    );
  });

  describe('loopbackOnly (DNS-rebinding protection)', () => {
    const asHost = (host: string, headers: Record<string, string> = {}) =>
      mcp.fetch(
        new Request('http://127.0.0.1:8787/mcp', {
          method: 'POST',
          headers: {
            host,
            authorization: 'Bearer token-a',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(initialize),
        }),
      );

    it('answers 403 with a JSON-RPC error to a foreign Host or Origin, valid token or not', async () => {
      start({ loopbackOnly: true });
      for (const [host, origin] of [
        ['evil.example', undefined],
        ['evil.example:8787', 'http://evil.example:8787'],
        ['127.0.0.1:8787', 'http://evil.example'],
        ['localhost:8787', 'null'],
      ] as const) {
        const answer = await asHost(host, origin ? { origin } : {});
        expect(answer.status, `${host} ${origin}`).toBe(403);
        expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      }
    });

    it('answers loopback hosts and origins, and the allowedHosts listed', async () => {
      start({ loopbackOnly: { allowedHosts: ['dev.example.test'] } });
      for (const host of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787', 'dev.example.test']) {
        const answer = await asHost(host, { origin: `http://${host}` });
        await answer.body?.cancel();
        expect(answer.status, host).toBe(200);
      }
    });

    it('is off by default (a fetch handler does not know where it is served)', async () => {
      start();
      const answer = await asHost('gateway.example');
      await answer.body?.cancel();
      expect(answer.status).toBe(200);
    });
  });

  it('closes a session that ended (DELETE) and forgets its id', async () => {
    start();
    const alice = await open('token-a');
    const closed = await mcp.fetch(
      new Request('http://gateway.test/mcp', {
        method: 'DELETE',
        headers: {
          authorization: 'Bearer token-a',
          'mcp-session-id': alice,
          'mcp-protocol-version': '2025-06-18',
        },
      }),
    );
    expect(closed.status).toBe(200);
    expect((await post('token-a', rpc(2, 'tools/list'), alice)).status).toBe(404);
  });

  it('closes a session idle for sessions.idleMs when a new one opens, not a recently used one', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    start({ sessions: { idleMs: 1_000 } });
    const idle = await open('token-a');
    const recent = await open('token-a');
    vi.setSystemTime(Date.now() + 800);
    expect((await post('token-a', rpc(2, 'tools/list'), recent)).status).toBe(200);
    vi.setSystemTime(Date.now() + 400);
    await open('token-b');
    expect((await post('token-a', rpc(3, 'tools/list'), idle)).status).toBe(404);
    expect((await post('token-a', rpc(3, 'tools/list'), recent)).status).toBe(200);
  });

  it('does not close a session idle for sessions.idleMs while one of its tasks runs', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    start({ sessions: { idleMs: 1_000 } });
    const alice = await open('token-a');
    const created = (await message(
      await post(
        'token-a',
        rpc(2, 'tools/call', { name: 'wipe', arguments: { folder: '/a' }, task: { ttl: 60_000 } }),
        alice,
      ),
    )) as { result: { task: { taskId: string } } };
    const { taskId } = created.result.task;
    // No request for longer than idleMs, but a task waits for an operator: not closed.
    vi.setSystemTime(Date.now() + 5_000);
    await open('token-b');
    const read = await post('token-a', rpc(3, 'tasks/get', { taskId }), alice);
    expect(read.status).toBe(200);
    expect(await message(read)).toMatchObject({ result: { status: 'working' } });
  });

  it('does not keep a session for a request that is not an initialize', async () => {
    start({ sessions: { max: 1 } });
    const stray = await post('token-a', rpc(1, 'tools/list'));
    expect(stray.status).toBe(400);
    await open('token-a');
  });

  it('answers 404 not_found on other paths, and 401 before any MCP work', async () => {
    start();
    const other = await mcp.fetch(new Request('http://gateway.test/elsewhere', { method: 'POST' }));
    expect(other.status).toBe(404);
    const anonymous = await mcp.fetch(
      new Request('http://gateway.test/mcp', { method: 'POST', body: JSON.stringify(initialize) }),
    );
    expect(anonymous.status).toBe(401);
  });

  it('refuses a body over maxBodyBytes with 413 before parsing it', async () => {
    start({ maxBodyBytes: 2_048 });
    const alice = await open('token-a');
    const big = rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(4_096) } });
    expect((await post('token-a', big, alice)).status).toBe(413);
  });

  it.each([
    [
      { waitMs: -1 },
      'createMcpHandler: waitMs is the number -1: expected a whole number from 0 to 600000.',
    ],
    [
      { pollIntervalMs: 0 },
      'createMcpHandler: pollIntervalMs is the number 0: expected a whole number',
    ],
    [{ path: 'mcp' }, 'createMcpHandler: path is a string: expected a path starting with "/"'],
    [
      { basePath: '/gateway/' },
      'createMcpHandler: basePath is a string: expected "/prefix" (no trailing slash)',
    ],
    [{ sessions: { perCaller: 0 } }, 'createMcpHandler: sessions.perCaller is the number 0:'],
    [{ maxBodyBytes: 1.5 }, 'createMcpHandler: maxBodyBytes is the number 1.5:'],
    [
      { loopbackOnly: { allowedHosts: ['dev.test', 'http://x.test/'] } },
      'createMcpHandler: loopbackOnly.allowedHosts[1] is a string: expected a host name, e.g. "dev.example.test"',
    ],
    [
      { loopbackOnly: { allowedHosts: 'dev.test' as never } },
      'createMcpHandler: loopbackOnly.allowedHosts is a string: expected a list of host names.',
    ],
    // A cap on what callers make us keep is a positive integer: 0 is refused, never "unbounded".
    [{ sessions: { max: 0 } }, 'createMcpHandler: sessions.max is the number 0: expected a whole'],
    [{ sessions: { max: Number.NaN } }, 'createMcpHandler: sessions.max is NaN:'],
    [{ sessions: { perCaller: -1 } }, 'createMcpHandler: sessions.perCaller is the number -1:'],
    [{ maxBodyBytes: 0 }, 'createMcpHandler: maxBodyBytes is the number 0:'],
    [{ sessions: 16 as never }, 'createMcpHandler: sessions is the number 16: expected { max?'],
    [{ sessions: [] as never }, 'createMcpHandler: sessions is an array: expected { max?'],
  ])('refuses the options %j with McpConfigError', (options, message) => {
    gateway = createGateway({
      gateway: { id: 'x', name: 'x' },
      actions: [echo],
      auth: { tokens: ['t'] },
    });
    mcp = createMcpHandler(gateway);
    expect(() => createMcpHandler(gateway, options)).toThrow(McpConfigError);
    let thrown: unknown;
    try {
      createMcpHandler(gateway, options);
    } catch (error) {
      thrown = error;
    }
    expect(isMcpConfigError(thrown)).toBe(true);
    expect(() => createMcpHandler(gateway, options)).toThrow(message);
  });
});

// What a careless user or a hostile configuration passes, for every count, size and duration:
// a McpConfigError naming the option, never a budget quietly lifted. (`waitMs: 0` answers at
// once: a setting, not a budget.)
const BAD = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '100'];
const OPTIONS: [string, (value: unknown) => unknown, unknown[]][] = [
  ['sessions.max', (max) => ({ sessions: { max } }), BAD],
  ['sessions.perCaller', (perCaller) => ({ sessions: { perCaller } }), BAD],
  ['sessions.idleMs', (idleMs) => ({ sessions: { idleMs } }), BAD],
  ['maxBodyBytes', (maxBodyBytes) => ({ maxBodyBytes }), BAD],
  ['pollIntervalMs', (pollIntervalMs) => ({ pollIntervalMs }), BAD],
  ['taskTtlMs', (taskTtlMs) => ({ taskTtlMs }), BAD],
  ['waitMs', (waitMs) => ({ waitMs }), BAD.slice(1)],
];

it.each(
  OPTIONS.flatMap(([option, build, values]) =>
    values.map((value) => [option, value, build] as const),
  ),
)('createMcpHandler refuses %s = %j, naming it', (option, value, build) => {
  const gateway = createGateway({
    gateway: { id: 'x', name: 'x' },
    actions: [echo],
    auth: { tokens: ['t'] },
  });
  let thrown: unknown;
  try {
    createMcpHandler(gateway, build(value) as McpHandlerOptions);
  } catch (error) {
    thrown = error;
  }
  void gateway.close();
  expect(isMcpConfigError(thrown), `${option} accepted ${value}`).toBe(true);
  expect((thrown as Error).message.startsWith(`createMcpHandler: ${option} is `)).toBe(true);
});

describe('what a JavaScript caller passes by mistake is refused when the handler is created', () => {
  const made = () =>
    createGateway({ gateway: { id: 'x', name: 'x' }, actions: [echo], auth: { tokens: ['t'] } });

  /** The McpConfigError message `createMcpHandler(...args)` throws (no type checking). */
  function messageFor(...args: unknown[]): string {
    try {
      (createMcpHandler as (...args: unknown[]) => unknown)(...args);
    } catch (error) {
      expect(isMcpConfigError(error)).toBe(true);
      expect(error).toBeInstanceOf(McpConfigError);
      return (error as Error).message;
    }
    throw new Error('createMcpHandler accepted the arguments');
  }

  it('an unknown option name, with the known ones and never its value', () => {
    const gateway = made();
    expect(messageFor(gateway, { bogus: 1 })).toBe(
      'createMcpHandler: unknown option "bogus" (known: path, sessions, maxBodyBytes, loopbackOnly, basePath, waitMs, pollIntervalMs, taskTtlMs).',
    );
    // A misspelt budget would otherwise keep its default silently.
    const message = messageFor(gateway, { waitMS: 0, maxBodyByte: 'sec-r3t-value', path: '/x' });
    expect(message).toMatch(/^createMcpHandler: unknown options "waitMS", "maxBodyByte" \(known: /);
    expect(message).not.toContain('sec-r3t-value');
    // Even set to `undefined` (`{ pathh: config.path }`): the name is wrong either way.
    expect(messageFor(gateway, { pathh: undefined })).toMatch(/unknown option "pathh"/);
    void gateway.close();
  });

  it('an unknown key inside sessions and loopbackOnly', () => {
    const gateway = made();
    expect(messageFor(gateway, { sessions: { max: 10, idleMS: 5_000 } })).toBe(
      'createMcpHandler: sessions: unknown option "idleMS" (known: max, perCaller, idleMs).',
    );
    expect(messageFor(gateway, { loopbackOnly: { allowedHosts: [], allowHosts: ['x'] } })).toBe(
      'createMcpHandler: loopbackOnly: unknown option "allowHosts" (known: allowedHosts).',
    );
    void gateway.close();
  });

  it('options that are no object', () => {
    const gateway = made();
    expect(messageFor(gateway, null)).toBe(
      'createMcpHandler: options is null: expected { path?, sessions?, maxBodyBytes?, … }.',
    );
    expect(messageFor(gateway, '/mcp')).toMatch(/^createMcpHandler: options is a string: /);
    expect(messageFor(gateway, { loopbackOnly: null })).toBe(
      'createMcpHandler: loopbackOnly is null: expected true, false or { allowedHosts: [...] }.',
    );
    expect(messageFor(gateway, { loopbackOnly: 'yes' })).toMatch(
      /^createMcpHandler: loopbackOnly is a string: expected true, false/,
    );
    void gateway.close();
  });

  it('a missing or wrong gateway, saying what to pass, before any request', () => {
    const expected =
      'expected a gateway made by createGateway() from @svc/gateway-kit, as the first argument: createMcpHandler(gateway, options?).';
    expect(messageFor()).toBe(`createMcpHandler: gateway is undefined: ${expected}`);
    expect(messageFor({})).toBe(`createMcpHandler: gateway is an object: ${expected}`);
    expect(messageFor(null, {})).toBe(`createMcpHandler: gateway is null: ${expected}`);
    // The options where the gateway goes, or the gateway's own handler.
    expect(messageFor({ path: '/mcp' })).toBe(
      `createMcpHandler: gateway is an object: ${expected}`,
    );
    const gateway = made();
    expect(messageFor(gateway.fetch)).toBe(`createMcpHandler: gateway is a function: ${expected}`);
    expect(messageFor({ fetch: gateway.fetch, manifest: gateway.manifest })).toMatch(
      /^createMcpHandler: gateway is an object: expected a gateway made by createGateway\(\)/,
    );
    void gateway.close();
  });

  it('accepts every documented option, and a key set to undefined', async () => {
    const gateway = made();
    const handler = createMcpHandler(gateway, {
      path: '/tools',
      sessions: { max: 10, perCaller: 2, idleMs: 5_000 },
      maxBodyBytes: 4_096,
      loopbackOnly: { allowedHosts: ['dev.example.test'] },
      basePath: '/gateway',
      waitMs: 0,
      pollIntervalMs: 100,
      taskTtlMs: 60_000,
    });
    expect(handler.path).toBe('/tools');
    // As JavaScript (or `{ max: config.max }`) passes them: known keys set to undefined.
    const unset = { path: undefined, sessions: { max: undefined } } as unknown as McpHandlerOptions;
    expect(createMcpHandler(gateway, unset).path).toBe('/mcp');
    expect(createMcpHandler(gateway, { loopbackOnly: true }).path).toBe('/mcp');
    await handler.close();
    await gateway.close();
  });
});
