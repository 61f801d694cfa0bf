import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { type RunningServer, serve } from './serve.ts';
import { toNodeHandler } from './to-node-handler.ts';

const gateway = fixtureGateway();

/** GET /v1/manifest on 127.0.0.1:`port` with the given headers (node:http: `Host` as sent). */
function manifest(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/manifest',
        headers: { authorization: `Bearer ${TOKEN}`, ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

const portOf = (running: RunningServer): number => Number(new URL(running.url).port);

describe('serve() on loopback refuses foreign hosts (DNS rebinding)', () => {
  let running: RunningServer;
  let port: number;
  beforeAll(async () => {
    running = await serve(gateway, { port: 0 });
    port = portOf(running);
  });
  afterAll(() => running.close());

  it('answers 403 forbidden_host to a valid token sent with a foreign Host', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) {
      const answer = await manifest(port, { host });
      expect(answer.status, host).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({
        error: { code: 'forbidden_host', message: expect.any(String), retryable: false },
      });
    }
  });

  it('answers loopback names and addresses', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`]) {
      expect((await manifest(port, { host })).status, host).toBe(200);
    }
  });

  it('refuses a foreign Origin even with a loopback Host', async () => {
    const host = `127.0.0.1:${port}`;
    expect((await manifest(port, { host, origin: 'http://evil.example' })).status).toBe(403);
    expect((await manifest(port, { host, origin: 'null' })).status).toBe(403);
    expect((await manifest(port, { host, origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it('checks the host before the token: no token, no gateway work, same 403', async () => {
    const answer = await manifest(port, { host: 'evil.example', authorization: 'Bearer wrong' });
    expect(answer.status).toBe(403);
  });
});

describe('allowedHosts', () => {
  it('adds exact names and domains, and true turns the check off', async () => {
    const listed = await serve(gateway, {
      port: 0,
      allowedHosts: ['dev.example.test', '.proxy.test'],
    });
    const open = await serve(gateway, { port: 0, allowedHosts: true });
    try {
      const port = portOf(listed);
      expect((await manifest(port, { host: 'dev.example.test:443' })).status).toBe(200);
      expect((await manifest(port, { host: 'a.b.proxy.test' })).status).toBe(200);
      expect((await manifest(port, { host: 'proxy.test' })).status).toBe(200);
      expect((await manifest(port, { host: 'other.example.test' })).status).toBe(403);
      expect((await manifest(portOf(open), { host: 'evil.example' })).status).toBe(200);
    } finally {
      await Promise.all([listed.close(), open.close()]);
    }
  });

  it('rejects entries that are not host names', async () => {
    await expect(serve(gateway, { port: 0, allowedHosts: ['http://x.test/'] })).rejects.toThrow(
      /^serve: allowedHosts\[0\] is a string: expected a host name, e\.g\. "dev\.example\.test"/,
    );
  });
});

describe('servers not bound to loopback', () => {
  it('are not checked (an exposed server is reached under any name)', async () => {
    const server = createServer(toNodeHandler(gateway));
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      expect((await manifest(port, { host: 'gateway.example' })).status).toBe(200);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
