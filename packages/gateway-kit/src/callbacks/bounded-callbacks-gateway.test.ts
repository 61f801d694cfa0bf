import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { asyncGateway, OTHER_TOKEN, TOKEN } from '../../test/async-fixture.ts';
import { serve } from '../adapters/node/serve.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import { invokeBody } from '../testing/index.ts';
import { CALLBACK_LIMIT_DEFAULTS } from './delivery-limiter.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Accepts connections, reads what arrives, never answers. */
async function silentReceiver() {
  const sockets = new Set<Socket>();
  let peak = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    peak = Math.max(peak, sockets.size);
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${port}/jobs`,
    get open() {
      return sockets.size;
    },
    get peak() {
      return peak;
    },
  };
}

/** An HTTP receiver that answers 204 to everything. */
async function answeringReceiver() {
  let received = 0;
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${port}/jobs`,
    get received() {
      return received;
    },
  };
}

describe('gateway with job callbacks to a receiver that never answers', () => {
  it('1 100 finished jobs of one principal hold at most maxConcurrentPerDestination sockets; the excess over its share is logged as overflow; another principal’s callbacks are delivered meanwhile', async () => {
    const receiver = await silentReceiver();
    const failures: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
    const gateway: Gateway = asyncGateway({
      callbacks: { urlPolicy: { allowInsecureLoopback: true }, attemptTimeoutMs: 120_000 },
      // The gateway's default reporter: every callback not delivered is logged.
      logger: {
        error: () => undefined,
        warn: (message, fields) => failures.push({ message, fields }),
      },
    });
    const running = await serve(gateway, { port: 0 });
    cleanups.push(() => gateway.close(), running.close);
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    for (let i = 0; i < 1_100; i++) {
      const body = invokeBody(
        'generate-report',
        { topic: `t${i}` },
        { callbacks: { jobResultUrl: receiver.url } },
      );
      const response = await gateway.fetch(
        new Request('https://gateway.acme.example/v1/invoke', {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
        }),
      );
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }

    const { maxConcurrentPerDestination, maxPendingPerPrincipal } = CALLBACK_LIMIT_DEFAULTS;
    await expect
      .poll(() => failures.length, { timeout: 10_000 })
      .toBe(1_100 - maxPendingPerPrincipal);
    for (const failure of failures) {
      expect(failure).toEqual({
        message: 'callback not delivered',
        fields: {
          webhookId: expect.any(String),
          target: expect.any(String),
          principal: 'default',
          reason: 'overflow',
        },
      });
    }

    // Another principal: its share is untouched, its receiver is served at once.
    const healthy = await answeringReceiver();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const body = invokeBody(
        'generate-report',
        { topic: `b${i}` },
        { callbacks: { jobResultUrl: healthy.url } },
      );
      const response = await gateway.fetch(
        new Request('https://gateway.acme.example/v1/invoke', {
          method: 'POST',
          headers: { ...headers, authorization: `Bearer ${OTHER_TOKEN}` },
          body: JSON.stringify(body),
        }),
      );
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
    await expect.poll(() => healthy.received, { timeout: 5_000 }).toBe(20);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failures).toHaveLength(1_100 - maxPendingPerPrincipal);
    // One receiver: the per-destination cap is the one that binds.
    await expect.poll(() => receiver.open, { timeout: 10_000 }).toBe(maxConcurrentPerDestination);
    expect(receiver.peak).toBe(maxConcurrentPerDestination);

    const manifest = await fetch(`${running.url}/v1/manifest`, { headers });
    expect(manifest.status).toBe(200);
    expect(await manifest.json()).toMatchObject({ gateway: { id: 'acme' } });

    await gateway.close();
    // Node 22's fetch may keep a spare connection per origin until its keep-alive timeout (4 s).
    await expect.poll(() => receiver.open, { timeout: 15_000 }).toBe(0);
    expect(failures).toHaveLength(1_100);
    expect(failures.filter((f) => f.fields?.principal !== 'default')).toEqual([]);
  }, 30_000);
});
