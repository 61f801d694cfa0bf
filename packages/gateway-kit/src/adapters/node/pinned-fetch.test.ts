import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkCallbackUrlResolved } from '../../callbacks/callback-url-guard.ts';
import { deliverCallback } from '../../callbacks/deliver-callback.ts';
import { createPinnedFetch } from './pinned-fetch.ts';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A receiver on 127.0.0.1 that records every TCP connection and every request. */
async function startReceiver(
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_, res) =>
    res.writeHead(202, { 'x-receiver': 'yes' }).end('accepted'),
) {
  const requests: Received[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  receivers.push(server);
  return {
    server,
    port,
    requests,
    get connections() {
      return connections;
    },
  };
}

const receivers: Server[] = [];
afterEach(() => {
  for (const server of receivers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A DNS that answers a public address first and loopback afterwards: a rebinding attacker. */
function rebindingResolver() {
  let calls = 0;
  return vi.fn(async (_hostname: string) => (calls++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']));
}

const causeCode = (error: unknown): unknown => ((error as Error).cause as { code?: string }).code;

describe('createPinnedFetch', () => {
  it('refuses to connect when the name rebinds to loopback between the check and the connection', async () => {
    const receiver = await startReceiver();
    const resolveHost = rebindingResolver();
    const url = `https://rebind.example.com:${receiver.port}/callbacks`;
    // At check time the name is public…
    expect((await checkCallbackUrlResolved(url, {}, resolveHost)).ok).toBe(true);
    // …at connect time it is 127.0.0.1: the pinned fetch never opens the connection.
    const pinnedFetch = createPinnedFetch({ resolveHost });
    const error = await pinnedFetch(url, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(causeCode(error)).toBe('ERR_CALLBACK_ADDRESS_REFUSED');
    expect(resolveHost).toHaveBeenCalledTimes(2);
    expect(resolveHost).toHaveBeenLastCalledWith('rebind.example.com');
    expect(receiver.connections).toBe(0);
    expect(receiver.requests).toEqual([]);
  });

  it('refuses a name when any of its addresses is blocked', async () => {
    const receiver = await startReceiver();
    const pinnedFetch = createPinnedFetch({
      resolveHost: async () => ['93.184.215.14', '127.0.0.1'],
    });
    const error = await pinnedFetch(`https://mixed.example.com:${receiver.port}/`, {
      method: 'POST',
    }).catch((e: unknown) => e);
    expect(causeCode(error)).toBe('ERR_CALLBACK_ADDRESS_REFUSED');
    expect(receiver.connections).toBe(0);
  });

  it('refuses URLs the policy refuses literally, without resolving or connecting', async () => {
    const receiver = await startReceiver();
    const resolveHost = vi.fn(async () => ['127.0.0.1']);
    const pinnedFetch = createPinnedFetch({ resolveHost });
    for (const url of [
      `http://127.0.0.1:${receiver.port}/`,
      `https://0x7f000001:${receiver.port}/`,
      `http://localhost:${receiver.port}/`,
      `https://localhost.:${receiver.port}/`,
      `http://hooks.example.com:${receiver.port}/`,
    ]) {
      const error = await pinnedFetch(url, { method: 'POST' }).catch((e: unknown) => e);
      expect(causeCode(error)).toBe('ERR_CALLBACK_URL_REFUSED');
    }
    expect(resolveHost).not.toHaveBeenCalled();
    expect(receiver.connections).toBe(0);
  });

  it('with allowInsecureLoopback, POSTs method, headers and body to a loopback receiver', async () => {
    const receiver = await startReceiver();
    const resolveHost = vi.fn(async () => ['127.0.0.1']);
    const pinnedFetch = createPinnedFetch({
      urlPolicy: { allowInsecureLoopback: true },
      resolveHost,
    });
    const response = await pinnedFetch(`http://localhost:${receiver.port}/cb?tenant=42`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: '{"job":{"jobId":"j1"}}',
    });
    expect(response.status).toBe(202);
    expect(response.headers.get('x-receiver')).toBe('yes');
    expect(await response.text()).toBe('accepted');
    expect(resolveHost).toHaveBeenCalledWith('localhost');
    expect(receiver.requests).toEqual([
      {
        method: 'POST',
        url: '/cb?tenant=42',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'webhook-id': 'msg_1',
          'content-length': '22',
        }),
        body: '{"job":{"jobId":"j1"}}',
      },
    ]);
  });

  it('connects to what an allowed host resolves to, and opens a new connection per request', async () => {
    const receiver = await startReceiver();
    const pinnedFetch = createPinnedFetch({
      urlPolicy: { allowHosts: ['hooks.corp.internal'] },
      resolveHost: async () => ['127.0.0.1'],
    });
    // allowHosts still needs https: a plain-http receiver sees the TLS handshake fail.
    await expect(
      pinnedFetch(`https://hooks.corp.internal:${receiver.port}/`, { method: 'POST' }),
    ).rejects.toThrow(TypeError);
    expect(receiver.connections).toBe(1);
    const loopback = createPinnedFetch({
      urlPolicy: { allowInsecureLoopback: true },
      resolveHost: async () => ['127.0.0.1'],
    });
    await (await loopback(`http://localhost:${receiver.port}/a`)).text();
    await (await loopback(`http://localhost:${receiver.port}/b`)).text();
    expect(receiver.connections).toBe(3);
  });

  it('returns a redirect as it is, without following it', async () => {
    const receiver = await startReceiver((_, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:1/elsewhere` }).end(),
    );
    const pinnedFetch = createPinnedFetch({
      urlPolicy: { allowInsecureLoopback: true },
      resolveHost: async () => ['127.0.0.1'],
    });
    const url = `http://localhost:${receiver.port}/cb`;
    const response = await pinnedFetch(url, { method: 'POST', redirect: 'follow' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://127.0.0.1:1/elsewhere');
    await expect(pinnedFetch(url, { method: 'POST', redirect: 'error' })).rejects.toThrow(
      TypeError,
    );
    expect(receiver.requests).toHaveLength(2);
    // A POST without a body is sent with a zero length, as fetch sends it, not chunked.
    expect(receiver.requests[0]?.headers['content-length']).toBe('0');
    expect(receiver.requests[0]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('aborts on the signal: rejects with the abort reason and closes the connection', async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const closed: Promise<unknown>[] = [];
    const receiver = await startReceiver((req) => {
      closed.push(once(req.socket, 'close'));
      arrived(); // and never answer
    });
    const pinnedFetch = createPinnedFetch({
      urlPolicy: { allowInsecureLoopback: true },
      resolveHost: async () => ['127.0.0.1'],
    });
    const controller = new AbortController();
    const pending = pinnedFetch(`http://localhost:${receiver.port}/slow`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    await requestArrived;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await Promise.all(closed);
    expect(receiver.requests).toHaveLength(1);

    const early = new AbortController();
    early.abort();
    await expect(
      pinnedFetch(`http://localhost:${receiver.port}/`, { signal: early.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(receiver.connections).toBe(1);
  });

  it('streams the response body, and aborting the signal errors it and closes the socket', async () => {
    const closed: Promise<unknown>[] = [];
    const receiver = await startReceiver((req, res) => {
      closed.push(once(req.socket, 'close'));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part'); // and never end
    });
    const pinnedFetch = createPinnedFetch({
      urlPolicy: { allowInsecureLoopback: true },
      resolveHost: async () => ['127.0.0.1'],
    });
    const controller = new AbortController();
    const response = await pinnedFetch(`http://localhost:${receiver.port}/stream`, {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first part');
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await Promise.all(closed);
  });

  it('is a fetch deliverCallback can use', async () => {
    const receiver = await startReceiver();
    const urlPolicy = { allowInsecureLoopback: true };
    const result = await deliverCallback({
      url: `http://localhost:${receiver.port}/jobs`,
      body: { job: { jobId: 'j1' } },
      webhookId: 'job_j1_completed',
      authorization: 'Bearer receiver-credential',
      urlPolicy,
      fetch: createPinnedFetch({ urlPolicy, resolveHost: async () => ['127.0.0.1'] }),
    });
    expect(result).toMatchObject({ delivered: true, attempts: 1 });
    expect(receiver.requests[0]?.headers).toMatchObject({
      authorization: 'Bearer receiver-credential',
      'webhook-id': 'job_j1_completed',
    });
  });
});
