import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { serve } from './serve.ts';

const gateway = fixtureGateway();

function open(url: string): Socket {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  return socket;
}

/** Everything the server sends until it closes the connection. */
async function untilClosed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  await once(socket, 'close');
  return received;
}

describe('serve: connection limits', () => {
  it('sets documented defaults instead of Node’s', async () => {
    const running = await serve(gateway, { port: 0 });
    try {
      expect(running.server.requestTimeout).toBe(30_000);
      expect(running.server.headersTimeout).toBe(10_000);
      expect(running.server.keepAliveTimeout).toBe(65_000);
      expect(running.server.maxConnections).toBe(512);
    } finally {
      await running.close();
    }
  });

  it('takes overrides, and lowers the headers timeout with a lower request timeout', async () => {
    const running = await serve(gateway, {
      port: 0,
      requestTimeoutMs: 5_000,
      keepAliveTimeoutMs: 1_000,
      maxConnections: 8,
    });
    try {
      expect(running.server.requestTimeout).toBe(5_000);
      expect(running.server.headersTimeout).toBe(5_000);
      expect(running.server.keepAliveTimeout).toBe(1_000);
      expect(running.server.maxConnections).toBe(8);
    } finally {
      await running.close();
    }
  });

  it('rejects a headers timeout above the request timeout', async () => {
    await expect(
      serve(gateway, { port: 0, requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 }),
    ).rejects.toThrow(/headersTimeout/);
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const running = await serve(gateway, {
      port: 0,
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
    });
    try {
      const started = Date.now();
      const socket = open(running.url);
      socket.write(
        `GET /v1/manifest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n`,
      );
      const received = await untilClosed(socket);
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await running.close();
    }
  });

  it('drops connections beyond maxConnections', async () => {
    const running = await serve(gateway, { port: 0, maxConnections: 1 });
    try {
      const accepted = once(running.server, 'connection');
      const first = open(running.url);
      await accepted;
      const dropped = once(running.server, 'drop');
      const second = open(running.url);
      const received = await untilClosed(second);
      await dropped;
      expect(received).toBe('');
      first.destroy();
    } finally {
      await running.close();
    }
  });
});
