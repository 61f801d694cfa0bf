// serve()'s own HTTP/1.1 server as a client on the wire sees it: raw bytes in, raw bytes out.
import { once } from 'node:events';
import type { Socket } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../../test/fixture-gateway.ts';
import { openSocket, untilClosed } from '../../../../test/raw-socket.ts';
import { defineAction } from '../../../actions/define-action.ts';
import { createGateway } from '../../../gateway/create-gateway.ts';
import { invokeBody } from '../../../testing/index.ts';
import { type RunningServer, serve } from '../serve.ts';

let running: RunningServer;
let port: number;
beforeAll(async () => {
  running = await serve(fixtureGateway(), { port: 0 });
  port = Number(new URL(running.url).port);
});
afterAll(() => running.close());

const open = (to = port): Socket => openSocket(`http://127.0.0.1:${to}`);

/** Reads whole answers (head and `content-length` body) off a connection as they come. */
function answers(socket: Socket) {
  let received = '';
  const parsed: { status: number; head: string; body: string }[] = [];
  const waiting: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    for (;;) {
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) break;
      const head = received.slice(0, end);
      const status = Number(head.slice(9, 12));
      const length = /content-length: (\d+)/i.exec(head);
      const bodyLength = status === 100 || length === null ? 0 : Number(length[1]);
      if (received.length < end + 4 + bodyLength) break;
      parsed.push({
        status,
        head: head.toLowerCase(),
        body: received.slice(end + 4, end + 4 + bodyLength),
      });
      received = received.slice(end + 4 + bodyLength);
      for (const wake of waiting.splice(0)) wake();
    }
  });
  return {
    async next(): Promise<{ status: number; head: string; body: string }> {
      while (parsed.length === 0) await new Promise<void>((wake) => waiting.push(wake));
      return parsed.shift()!;
    },
  };
}

const body = (input: Record<string, unknown> = { accountId: 'acc_1' }): string =>
  JSON.stringify(invokeBody('lookup-account', input));

function invoke(text = body(), extra = ''): string {
  return (
    `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
    `Content-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  );
}

const COMPLETED = '"status":"completed"';

describe("serve()'s HTTP/1.1 server", () => {
  it('answers an invoke, keeps the connection, and answers the next one on it', async () => {
    const socket = open();
    const read = answers(socket);
    socket.write(invoke());
    const first = await read.next();
    expect(first.status).toBe(200);
    expect(first.body).toContain(COMPLETED);
    expect(first.head).toContain('connection: keep-alive');
    expect(first.head).toContain('keep-alive: timeout=65');
    expect(first.head).toMatch(/\r\ndate: \w{3}, \d\d \w{3} \d{4} /);
    socket.write(invoke());
    expect((await read.next()).body).toContain(COMPLETED);
    socket.destroy();
  });

  it('reads a chunked body, with extensions and trailer fields, as the same invoke', async () => {
    const text = body();
    const socket = open();
    const read = answers(socket);
    socket.write(
      `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        `5;name=value\r\n${text.slice(0, 5)}\r\n` +
        `${(text.length - 5).toString(16).toUpperCase()}\r\n${text.slice(5)}\r\n` +
        '0\r\nX-Trailer: dropped\r\n\r\n',
    );
    const answer = await read.next();
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(COMPLETED);
    socket.destroy();
  });

  it('serves a request whose head and body arrive a few bytes at a time', async () => {
    const socket = open();
    const read = answers(socket);
    const bytes = Buffer.from(invoke());
    for (let at = 0; at < bytes.length; at += 7) {
      // Each piece its own write: the next once this one has been handed to the kernel.
      await new Promise((written) => socket.write(bytes.subarray(at, at + 7), written));
    }
    expect((await read.next()).body).toContain(COMPLETED);
    socket.destroy();
  });

  it('sends 100 Continue to a client that waits for it, then the answer', async () => {
    const text = body();
    const socket = open();
    const read = answers(socket);
    socket.write(invoke(text, 'Expect: 100-continue\r\n').replace(/\r\n\r\n.*$/s, '\r\n\r\n'));
    expect((await read.next()).status).toBe(100);
    socket.write(text);
    expect((await read.next()).body).toContain(COMPLETED);
    socket.destroy();
  });

  it('answers HEAD with the headers and no body, and the connection goes on', async () => {
    const socket = open();
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.write(
      `HEAD /v1/manifest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n${invoke()}`,
    );
    await expect.poll(() => received).toContain(COMPLETED);
    const [head = '', rest = ''] = received.split(/\r\n\r\n(?=HTTP\/1\.1 )/);
    expect(head.toLowerCase()).toMatch(/content-length: [1-9]\d*/);
    // The second answer starts right after the first one's head: no body came in between.
    expect(head).not.toContain('{');
    expect(rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    socket.destroy();
  });

  it('closes the connection after answering HTTP/1.0 without keep-alive', async () => {
    const socket = open();
    socket.write(invoke().replace('HTTP/1.1', 'HTTP/1.0'));
    const received = await untilClosed(socket);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(received).toContain(COMPLETED);
  });

  it('joins repeated Authorization headers, so two tokens are refused (401), not the first used', async () => {
    const socket = open();
    const read = answers(socket);
    socket.write(invoke(body(), `Authorization: Bearer ${TOKEN}\r\n`));
    expect((await read.next()).status).toBe(401);
    socket.destroy();
  });

  // A proxy in front that framed these differently would let one request hide another.
  it.each([
    ['Content-Length with Transfer-Encoding', 'Transfer-Encoding: chunked\r\n'],
    ['a second Content-Length', 'Content-Length: 3\r\n'],
    ['a second Host', 'Host: evil.example\r\n'],
    ['a folded header line', 'X-Folded: a\r\n b\r\n'],
    ['a space before the colon', 'Transfer-Encoding : chunked\r\n'],
    ['a bare LF', 'X-Bare: a\nX-Other: b\r\n'],
  ])(
    'refuses %s with 400 malformed_request and closes, running nothing smuggled',
    async (_, extra) => {
      const socket = open();
      const smuggled = invoke(body({ accountId: 'smuggled' }));
      socket.write(invoke(body(), extra) + smuggled);
      const received = await untilClosed(socket);
      expect(received).toMatch(/^HTTP\/1\.1 400 /);
      expect(received).toContain('"code":"malformed_request"');
      expect(received.toLowerCase()).toContain('connection: close');
      expect(received.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(1);
    },
  );

  it('answers 431 to a head over 16 KiB', async () => {
    const socket = open();
    socket.write(invoke(body(), `X-Big: ${'x'.repeat(17 * 1024)}\r\n`));
    const received = await untilClosed(socket);
    expect(received).toMatch(/^HTTP\/1\.1 431 /);
    expect(received).toContain('"code":"headers_too_large"');
  });
});

describe("serve()'s HTTP/1.1 server: connections over time", () => {
  it('answers 408 to a connection that sends nothing within headersTimeoutMs', async () => {
    const quick = await serve(fixtureGateway(), {
      port: 0,
      headersTimeoutMs: 200,
      requestTimeoutMs: 400,
    });
    try {
      const started = performance.now();
      const received = await untilClosed(open(Number(new URL(quick.url).port)));
      expect(performance.now() - started).toBeGreaterThanOrEqual(200);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(received).toContain('"code":"request_timeout"');
    } finally {
      await quick.close();
    }
  });

  it('closes an idle kept-alive connection after keepAliveTimeoutMs', async () => {
    const quick = await serve(fixtureGateway(), { port: 0, keepAliveTimeoutMs: 300 });
    try {
      const socket = open(Number(new URL(quick.url).port));
      const read = answers(socket);
      socket.write(invoke());
      expect((await read.next()).head).toContain('connection: keep-alive');
      const answered = performance.now();
      await once(socket, 'close');
      expect(performance.now() - answered).toBeGreaterThanOrEqual(250);
    } finally {
      await quick.close();
    }
  });

  it('aborts a running action when its client goes away, and close() waits for one under way', async () => {
    let aborted: (reason: unknown) => void = () => {};
    const abortedWith = new Promise((resolve) => {
      aborted = resolve;
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const waits = defineAction({
      id: 'waits',
      input: v.object({ hold: v.boolean() }),
      run: async ({ hold }, { signal }) => {
        started.push(hold ? 'hold' : 'abort');
        if (hold) await held;
        else
          await new Promise((resolve) =>
            signal.addEventListener('abort', () => resolve(aborted(signal.reason))),
          );
        return { outputText: 'done' };
      },
    });
    const gateway = createGateway({
      gateway: { id: 'acme', name: 'Acme' },
      actions: [waits],
      auth: { tokens: [TOKEN] },
    });
    const own = await serve(gateway, { port: 0 });
    const ownPort = Number(new URL(own.url).port);
    const leaving = open(ownPort);
    leaving.write(invoke(JSON.stringify(invokeBody('waits', { hold: false }))));
    await expect.poll(() => started).toEqual(['abort']);
    leaving.destroy();
    expect(await abortedWith).toMatchObject({ name: 'AbortError' });

    const staying = open(ownPort);
    const read = answers(staying);
    staying.write(invoke(JSON.stringify(invokeBody('waits', { hold: true }))));
    await expect.poll(() => started).toEqual(['abort', 'hold']);
    const closed = own.close();
    release();
    const answer = await read.next();
    expect(answer.status).toBe(200);
    expect(answer.head).toContain('connection: close');
    await closed;
  });
});
