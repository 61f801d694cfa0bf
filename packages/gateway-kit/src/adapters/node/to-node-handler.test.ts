import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { defineAction } from '../../actions/define-action.ts';
import { pathOf, queryOf } from '../../http/request-target.ts';
import { GatewayConfigError } from '../../runtime/gateway-config-error.ts';
import { invokeBody } from '../../testing/index.ts';
import { type RunningServer, serve } from './serve.ts';
import { toNodeHandler } from './to-node-handler.ts';

let aborted = 0;
/** Resolves once the action is running (its abort listener registered): no sleep needed. */
let actionRunning: () => void = () => {};
const waitForAbort = defineAction({
  id: 'wait-for-abort',
  input: v.object({}),
  timeoutMs: 5_000,
  run: (_, { signal }) =>
    new Promise((resolve) => {
      actionRunning();
      signal.addEventListener('abort', () => {
        aborted += 1;
        resolve({});
      });
    }),
});

const gateway = fixtureGateway({ maxBodyBytes: 4096, gateway: { id: 'acme', name: 'Acme' } });
let running: RunningServer;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

beforeAll(async () => {
  running = await serve(gateway, { port: 0 });
});
afterAll(() => running.close());

describe('@svc/gateway-kit/node', () => {
  it('serves the contract over real HTTP on an ephemeral loopback port', async () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${running.url}/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('lookup-account', { accountId: 'a1' })),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(
      String((await response.clone().arrayBuffer()).byteLength),
    );
    expect(await response.json()).toMatchObject({ status: 'completed' });
  });

  it('derives the manifest URL from the Host header', async () => {
    const response = await fetch(`${running.url}/v1/manifest`, { headers });
    expect(((await response.json()) as { gateway: { url: string } }).gateway.url).toBe(running.url);
  });

  it('answers 413 to a chunked body over the limit without buffering it all, and closes the connection', async () => {
    const { port } = running.server.address() as AddressInfo;
    const result = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const req = httpRequest({ port, path: '/v1/invoke', method: 'POST', headers }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, connection: res.headers.connection });
        });
        req.on('error', reject);
        // No Content-Length: Node sends chunked. Keep writing until the server answers.
        const chunk = 'x'.repeat(1024);
        let sent = 0;
        const pump = () => {
          while (sent < 1000 && req.write(chunk)) sent++;
          if (sent < 1000) req.once('drain', pump);
          else req.end();
        };
        pump();
      },
    );
    expect(result).toEqual({ status: 413, connection: 'close' });
  });

  it('aborts the running action when the client disconnects', async () => {
    const withWaiter = fixtureGateway({ actions: [waitForAbort] });
    const server = createServer(toNodeHandler(withWaiter)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const before = aborted;
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      actionRunning = resolve;
    });
    const pending = fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('wait-for-abort', {})),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await started;
    controller.abort();
    expect(await pending).toBe('aborted');
    await expect.poll(() => aborted, { timeout: 1000 }).toBe(before + 1);
    server.close();
  });

  it('uses a body already parsed by Express-style middleware', async () => {
    const handler = toNodeHandler(gateway);
    const server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        Object.assign(req, { body: JSON.parse(text), _body: true });
        handler(req, res);
      });
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const ok = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(invokeBody('lookup-account', { accountId: 'a1' })),
    });
    expect(await ok.json()).toMatchObject({ status: 'completed' });
    const polluted = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers,
      body: '{"__proto__":{"admin":true}}',
    });
    expect(polluted.status).toBe(400);
    server.close();
  });

  it('keeps serving after bad requests', async () => {
    for (const body of ['{', '[]', 'null']) {
      const response = await fetch(`${running.url}/v1/invoke`, { method: 'POST', headers, body });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    expect((await fetch(`${running.url}/v1/manifest`, { headers })).status).toBe(200);
  });
});

describe('toNodeHandler options', () => {
  it('refuses drain limits that are not non-negative integers', () => {
    expect(() => toNodeHandler(gateway, { drainMaxBytes: -1 })).toThrow(GatewayConfigError);
    expect(() => toNodeHandler(gateway, { drainTimeoutMs: 1.5 })).toThrow(
      new GatewayConfigError(
        'toNodeHandler: drainTimeoutMs is the number 1.5: expected a whole number of milliseconds from 0 to 2147483647.',
      ),
    );
    expect(() => toNodeHandler(gateway, { drainTimeoutMs: Number.NaN })).toThrow(/drainTimeoutMs/);
    expect(typeof toNodeHandler(gateway, { drainMaxBytes: 0, drainTimeoutMs: 0 })).toBe('function');
  });

  it.each([
    ['drainMaxBytes', [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1024', null]],
    // A longer timer than 2^31-1 ms fires at once: the drain would not wait at all.
    ['drainTimeoutMs', [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, '5000']],
    // `'false'` from an environment variable is truthy: it would trust forwarded headers.
    ['trustProxy', ['false', 1, null]],
    ['pinCallbackAddresses', ['false', 0]],
    ['allowedHosts', ['dev.example.test', false, null]],
  ] as const)('refuses every wrong %s, naming it', (option, values) => {
    for (const value of values) {
      expect(() => toNodeHandler(gateway, { [option]: value } as never), String(value)).toThrow(
        new RegExp(`^toNodeHandler: ${option} is `),
      );
    }
  });
});

describe('unknown options', () => {
  it('refuses a misspelt option by name: trustproxy would silently keep forwarded headers untrusted', () => {
    expect(() => toNodeHandler(gateway, { trustproxy: true } as never)).toThrow(
      /^toNodeHandler: options: unknown option "trustproxy" \(known: trustProxy, /,
    );
  });
});

describe('mounted under a path prefix by a framework', () => {
  it('derives absolute URLs from the mount path Express keeps in req.baseUrl', async () => {
    const unconfigured = fixtureGateway({ gateway: { id: 'acme', name: 'Acme' } });
    const handler = toNodeHandler(unconfigured);
    // What Express does for app.use('/gateway', handler): strip the prefix, remember it.
    const server = createServer((req, res) => {
      const original = req.url ?? '/';
      Object.assign(req, { url: original.slice('/gateway'.length) || '/', baseUrl: '/gateway' });
      handler(req, res);
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/gateway/v1/manifest`, { headers });
    expect(((await response.json()) as { gateway: { url: string } }).gateway.url).toBe(
      `http://127.0.0.1:${port}/gateway`,
    );
    server.close();
  });
});

describe('pathOf', () => {
  it('normalises request targets as new URL does (dot segments, encoded dots, absolute form)', () => {
    const targets = [
      '/v1/invoke',
      '/v1/invoke?x=1',
      '/v1/./invoke',
      '/v1/jobs/../invoke',
      '/v1/%2e%2e/v1/invoke',
      '/v1/%2E/invoke',
      '/v1/jobs/job%2e1',
      '/v1/jobs/a%20b',
      '/v1/jobs/.hidden',
      'http://example.test/v1/manifest?y',
      '/v1/manifest#x',
      '/v1/jobs/job_1#x?y',
    ];
    for (const target of targets)
      expect(pathOf(target), target).toBe(new URL(target, 'http://host.invalid').pathname);
  });

  it('leaves a fragment out of the path and the query, as Deno and Bun do', () => {
    expect(queryOf('/v1/approvals?status=pending#top')).toBe('status=pending');
    expect(queryOf('/v1/approvals#a?b')).toBe('');
  });
});
