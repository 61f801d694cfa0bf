import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import { connect, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { invokeBody } from '../../testing/index.ts';
import { type RunningServer, serve } from './serve.ts';

// What a caller of the gateway sees for one request: an answer, or a transport error.
type Outcome =
  | { readonly status: number; readonly headers: IncomingHttpHeaders; readonly text: string }
  | { readonly error: string };

const MiB = 1024 * 1024;
const BIG = Buffer.alloc(8 * MiB, 'x');
const authorised = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** POSTs `body` with a Content-Length on a fresh connection, as most HTTP clients do. */
function post(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  agent: Agent | false = false,
): Promise<Outcome & { reusedSocket?: boolean }> {
  return new Promise((resolve) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': String(body.length) },
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message }),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message }),
      );
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          reusedSocket: req.reusedSocket,
        }),
      );
    });
    req.end(body);
  });
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** A minimal reverse proxy, as nginx or a load balancer: streams the request on, the answer back. */
function startProxy(targetPort: number): Promise<Server> {
  const proxy = createServer((req, res) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && (name === 'content-length' || !HOP_BY_HOP.has(name)))
        headers[name] = value;
    }
    const upstream = httpRequest(
      { host: '127.0.0.1', port: targetPort, path: req.url, method: req.method, headers },
      (answer) => {
        const back: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) back[name] = value;
        }
        res.writeHead(answer.statusCode!, back);
        answer.pipe(res);
      },
    );
    // What a proxy answers when its upstream resets the connection.
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

const portOf = (server: NetServer): number => (server.address() as { port: number }).port;

function expectEnvelope(outcome: Outcome, status: number, code: string): void {
  expect(outcome).toMatchObject({ status });
  if ('text' in outcome) {
    expect(JSON.parse(outcome.text)).toMatchObject({ error: { code } });
  }
}

let running: RunningServer;
let proxy: Server;

beforeAll(async () => {
  running = await serve(fixtureGateway(), { port: 0 });
  proxy = await startProxy(portOf(running.server));
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  proxy.closeAllConnections();
  await running.close();
});

describe('@svc/gateway-kit/node: a reply that leaves the body unread', () => {
  const invoke = JSON.stringify(invokeBody('lookup-account', { accountId: 'a1' }));

  it('answers 20 consecutive 8 MiB bodies sent straight to serve() with the 413 envelope, never a reset', async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 20; i++) {
      outcomes.push(await post(portOf(running.server), '/v1/invoke', authorised, BIG));
    }
    for (const outcome of outcomes) expectEnvelope(outcome, 413, 'payload_too_large');
    expect(outcomes.every((o) => 'headers' in o && o.headers.connection === 'close')).toBe(true);
  });

  it('answers 20 consecutive 8 MiB bodies sent through a reverse proxy with the 413 envelope', async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 20; i++) {
      outcomes.push(await post(portOf(proxy), '/v1/invoke', authorised, BIG));
    }
    for (const outcome of outcomes) expectEnvelope(outcome, 413, 'payload_too_large');
  });

  it('answers 401, 415 and 404 to 8 MiB bodies it does not read, directly and through the proxy', async () => {
    const wrongToken = { ...authorised, authorization: 'Bearer not-the-token' };
    const text = { ...authorised, 'content-type': 'text/plain' };
    for (const port of [portOf(running.server), portOf(proxy)]) {
      for (let i = 0; i < 5; i++) {
        expectEnvelope(await post(port, '/v1/invoke', wrongToken, BIG), 401, 'unauthorized');
        expectEnvelope(await post(port, '/v1/invoke', text, BIG), 415, 'unsupported_media_type');
        expectEnvelope(await post(port, '/v1/nowhere', authorised, BIG), 404, 'not_found');
      }
    }
  });

  it('drops the connection of a body beyond drainMaxBytes instead of reading it all', async () => {
    const strict = await serve(fixtureGateway(), { port: 0, drainMaxBytes: MiB });
    try {
      // Declared too large: answered (or reset) at once, without reading the 8 MiB.
      const declared = await post(portOf(strict.server), '/v1/invoke', authorised, BIG);
      if ('status' in declared) expect(declared.status).toBe(413);
      else expect(declared.error).toMatch(/ECONNRESET|EPIPE/);
      // Streamed without a length: the server stops reading after the limit and closes.
      const socket = connect(portOf(strict.server), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = `${(64 * 1024).toString(16)}\r\n${'x'.repeat(64 * 1024)}\r\n`;
      let sent = 0;
      let closed = false;
      socket.once('close', () => {
        closed = true;
      });
      // Keep sending until the server closes: far fewer bytes than the 64 MiB ceiling.
      while (!closed && sent < 64 * MiB) {
        if (!socket.write(chunk))
          await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
        sent += 64 * 1024;
      }
      expect(closed).toBe(true);
      expect(sent).toBeLessThan(32 * MiB);
    } finally {
      await strict.close();
    }
  });

  it('closes a connection trickling its body after a 401 within 10 s', async () => {
    const started = Date.now();
    const socket = connect(portOf(running.server), '127.0.0.1');
    socket.on('error', () => undefined); // a reset also ends the exchange
    socket.write(
      'POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer not-the-token\r\n' +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.write(' '), 1000);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(trickle);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The caller reads the 401 envelope before the close: the reply is flushed before the socket
    // is dropped, and a reset does not discard what the receiving side has already queued.
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    expect(received).toContain('"code":"unauthorized"');
  }, 20_000);

  it('keeps a normal keep-alive invoke on its connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = portOf(running.server);
    const first = await post(port, '/v1/invoke', authorised, Buffer.from(invoke), agent);
    const second = await post(port, '/v1/invoke', authorised, Buffer.from(invoke), agent);
    agent.destroy();
    expect(first).toMatchObject({ status: 200, reusedSocket: false });
    expect(second).toMatchObject({ status: 200, reusedSocket: true });
    expect('headers' in second && second.headers.connection).toBe('keep-alive');
  });
});

/** Sends a request without a body (no Content-Length) through `agent`. */
function bodyless(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  agent: Agent,
): Promise<{ status: number; connection: string | undefined; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, agent, headers });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          connection: res.headers.connection,
          reusedSocket: req.reusedSocket,
        }),
      );
    });
    req.end();
  });
}

describe('@svc/gateway-kit/node: a request without a body', () => {
  it('keeps its connection when answered at once: manifest polls and refusals reuse one socket', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = portOf(running.server);
    const token = { authorization: `Bearer ${TOKEN}` };
    const answers = [
      await bodyless(port, 'GET', '/v1/manifest', token, agent),
      await bodyless(port, 'GET', '/v1/manifest', token, agent),
      await bodyless(port, 'GET', '/v1/manifest', {}, agent),
      await bodyless(port, 'GET', '/v1/nothing-here', token, agent),
      await bodyless(port, 'GET', '/v1/invoke', token, agent),
      // A POST with an empty body, refused before the gateway reads it.
      await bodyless(port, 'POST', '/v1/invoke', { ...token, 'content-length': '0' }, agent),
    ];
    agent.destroy();
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 404, 405, 415]);
    for (const answer of answers) expect(answer.connection).toBe('keep-alive');
    expect(answers.slice(1).every((answer) => answer.reusedSocket)).toBe(true);
  });
});
