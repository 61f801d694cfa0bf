import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOKEN } from '../../../test/fixture-gateway.ts';
import { defineAction } from '../../actions/define-action.ts';
import { createGateway, type Gateway } from '../../gateway/create-gateway.ts';
import { invokeBody } from '../../testing/index.ts';
import type { GatewayServer } from './http1/gateway-server.ts';
import {
  MAX_QUEUED_ANSWER_BYTES,
  MAX_QUEUED_ANSWERS,
  queuedAnswerBytesNow,
  queuedAnswerTooLarge,
} from './pipelining.ts';
import { serve } from './serve.ts';
import { toNodeHandler } from './to-node-handler.ts';

/** A gateway whose action holds every run until the test opens the gate. */
function gatedGateway() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const runs: string[] = [];
  const echo = defineAction({
    id: 'echo',
    description: 'Answers with its input, once the test lets it.',
    input: v.object({ n: v.number() }),
    run: async ({ n }) => {
      runs.push(String(n));
      await gate;
      return { outputText: `answer ${n}` };
    },
  });
  const gateway = createGateway({
    gateway: { id: 'acme', name: 'Acme' },
    actions: [echo],
    auth: { tokens: [TOKEN] },
    logger: { error: () => {} },
  });
  return { gateway, runs, open: () => open() };
}

/** `count` invokes of `action` (n = 0, 1, …) as one stream of HTTP/1.1 requests, sent at once. */
function pipelined(port: number, count: number, action = 'echo'): string {
  let requests = '';
  for (let n = 0; n < count; n++) {
    const body = JSON.stringify(invokeBody(action, { n }));
    requests +=
      `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }
  return requests;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Resolves the server's side of a new connection to `server`, already listening. */
async function connectTo(server: Server | GatewayServer) {
  const { port } = server.address() as AddressInfo;
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const client = connect(port, '127.0.0.1');
  client.on('error', () => {});
  const [serverSide] = await accepted;
  return { port, client, serverSide, url: `http://127.0.0.1:${port}` };
}

/** A `node:http` server of your own with the gateway (Node runs every request it has read). */
async function nodeServer(gateway: Gateway) {
  const server = createServer(toNodeHandler(gateway));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return connectTo(server);
}

/** `serve()`'s own server. */
async function served(gateway: Gateway) {
  const running = await serve(gateway, { port: 0 });
  close = () => {
    running.server.closeAllConnections();
    return running.close();
  };
  return connectTo(running.server);
}

describe('HTTP/1.1 pipelining on a node:http server of your own (toNodeHandler)', () => {
  it(`closes a connection that pipelines more than ${MAX_QUEUED_ANSWERS} requests ahead of its answers, having run no more of them`, async () => {
    const { gateway, runs, open } = gatedGateway();
    const { port, client, serverSide, url } = await nodeServer(gateway);
    // 500 invokes in one go, none of the answers read: before, all 500 actions ran at once.
    client.write(pipelined(port, 500));
    client.pause();
    await once(serverSide, 'close');
    // The one being answered and the 16 queued behind it ran; none after.
    expect(runs).toEqual(Array.from({ length: MAX_QUEUED_ANSWERS + 1 }, (_, n) => String(n)));
    open();
    client.destroy();
    // Other callers are served as before.
    const manifest = await fetch(`${url}/v1/manifest`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(manifest.status).toBe(200);
  });

  it(`answers ${MAX_QUEUED_ANSWERS + 1} pipelined requests in order, on one connection, to a client that reads them`, async () => {
    const { gateway, runs, open } = gatedGateway();
    const { port, client } = await nodeServer(gateway);
    let received = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => {
      received += chunk;
    });
    const count = MAX_QUEUED_ANSWERS + 1;
    client.write(pipelined(port, count));
    await vi.waitFor(() => expect(runs).toHaveLength(count));
    open();
    await vi.waitFor(() => expect(received.match(/"outputText"/g)).toHaveLength(count));
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(Array(count).fill('HTTP/1.1 200'));
    expect(received.match(/answer \d+/g)).toEqual(
      Array.from({ length: count }, (_, n) => `answer ${n}`),
    );
    expect(client.destroyed).toBe(false);
    client.destroy();
  });
});

describe('HTTP/1.1 pipelining on serve()', () => {
  it('runs pipelined requests one at a time, and reads no more than 64 KiB ahead of the one it answers', async () => {
    const { gateway, runs, open } = gatedGateway();
    const { port, client, serverSide, url } = await served(gateway);
    // 5 000 invokes in one go (about 1.5 MiB), none of the answers read yet.
    const requests = pipelined(port, 5_000);
    client.write(requests);
    await vi.waitFor(() => expect(runs).toEqual(['0']));
    // The rest wait in the sockets' buffers, not in the server: it stopped reading.
    await vi.waitFor(() => expect(serverSide.isPaused()).toBe(true));
    expect(serverSide.bytesRead).toBeLessThan(1024 * 1024);
    // Other callers are served meanwhile.
    const manifest = await fetch(`${url}/v1/manifest`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(manifest.status).toBe(200);
    let received = '';
    client.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    const answers = () => received.match(/HTTP\/1\.1 200 OK\r\n/g)?.length ?? 0;
    open();
    await vi.waitFor(() => expect(answers()).toBe(5_000), { timeout: 20_000, interval: 200 });
    expect(runs).toEqual(Array.from({ length: 5_000 }, (_, n) => String(n)));
    expect(client.destroyed).toBe(false);
    client.destroy();
  }, 30_000);
});

/** A connection sending another answer than `res`, as Node's is while `res` waits its turn. */
function busyConnection() {
  const socket = Object.assign(new EventEmitter(), {
    _httpMessage: {},
    destroyed: false,
    destroy() {
      socket.destroyed = true;
      socket.emit('close');
    },
  });
  const answer = () => ({ req: { socket } as never, res: new EventEmitter() as never });
  return { socket, answer };
}

describe('answers queued behind others, all connections together', () => {
  it(`closes a connection whose queued answer would bring the bytes waiting past ${MAX_QUEUED_ANSWER_BYTES}, and counts answers until they go out`, () => {
    const answerBytes = 256 * 1024;
    const fitting = MAX_QUEUED_ANSWER_BYTES / answerBytes;
    // 16 queued answers of 256 KiB (a job's result) on each of 512 connections, never read: before,
    // Node kept them all (2 GiB); 510 such connections ran a 256 MiB heap out of memory.
    const connections = Array.from({ length: fitting / 16 + 1 }, busyConnection);
    const queued: { res: EventEmitter }[] = [];
    let refused = 0;
    for (const { answer } of connections) {
      for (let n = 0; n < 16; n++) {
        const { req, res } = answer();
        if (queuedAnswerTooLarge(req, res, answerBytes)) refused += 1;
        else queued.push({ res });
      }
    }
    expect(queued).toHaveLength(fitting);
    expect(queuedAnswerBytesNow()).toBe(MAX_QUEUED_ANSWER_BYTES);
    // The last connection passed the budget: it is closed, the rest of its answers with it.
    expect(refused).toBe(16);
    expect(connections.at(-1)!.socket.destroyed).toBe(true);
    expect(connections.slice(0, -1).every(({ socket }) => !socket.destroyed)).toBe(true);

    // An answer that went out gives its bytes back; a closed connection gives back the rest.
    queued[0]!.res.emit('finish');
    expect(queuedAnswerBytesNow()).toBe(MAX_QUEUED_ANSWER_BYTES - answerBytes);
    connections[0]!.socket.destroy();
    queued[0]!.res.emit('finish');
    expect(queuedAnswerBytesNow()).toBe(MAX_QUEUED_ANSWER_BYTES - 16 * answerBytes);
    for (const { socket } of connections) socket.destroy();
    expect(queuedAnswerBytesNow()).toBe(0);
  });

  it('an answer sent in turn is not counted, however large', () => {
    const { socket } = busyConnection();
    const res = new EventEmitter();
    socket._httpMessage = res;
    expect(
      queuedAnswerTooLarge({ socket } as never, res as never, 2 * MAX_QUEUED_ANSWER_BYTES),
    ).toBe(false);
    expect(queuedAnswerBytesNow()).toBe(0);
  });
});
