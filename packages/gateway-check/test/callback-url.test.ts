import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway } from '@svc/gateway-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import { CheckOptionsError } from '../src/errors/check-options-error.ts';
import {
  buildSummary,
  findCustomer,
  referenceGateway,
  TOKEN,
} from './fixtures/reference-gateway.ts';
import { cli, IN_PROCESS_URL } from './gateways.ts';
import { serveHandler } from './serve-handler.ts';

// A gateway hosted elsewhere reaches the checker only through a tunnel or reverse proxy with a
// public address (`https://abc.tunnel.example/prefix` forwarding to a local port). There was no
// way to give the checker that address: `--callback-url URL` (`callbackUrl`) is the base the
// gateway is told to call back, separate from where the receiver listens (`--callback-port`, on
// loopback or `--callback-host`). Here a real node:http reverse proxy on another loopback port
// forwards a prefix to the receiver, as a tunnel would.

/** A path segment standing for a secret a tunnel URL may carry: never printed. */
const SECRET = 'hook-secret-3f9a';
const PREFIX = `/hooks/${SECRET}`;

const closers: (() => Promise<void>)[] = [];
/** Gateways whose callbacks in flight must settle before anything closes. */
const gateways: Gateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.idle();
  for (const close of closers.splice(0).reverse()) await close();
});

/** A kit gateway served over HTTP on loopback; its callback URL policy allows loopback unless `strict`. */
async function servedGateway(strict = false): Promise<{ url: string; invokes: string[] }> {
  const gateway: Gateway = strict
    ? createGateway({
        gateway: { id: 'strict', name: 'Strict gateway' },
        version: '2026-11-22',
        actions: [findCustomer, buildSummary],
        auth: { tokens: [TOKEN] },
      })
    : referenceGateway();
  /** The `callbacks.jobResultUrl` of every invoke the gateway got. */
  const invokes: string[] = [];
  const server = await serveHandler(async (request) => {
    if (request.method === 'POST' && new URL(request.url).pathname === '/v1/invoke') {
      const body = (await request
        .clone()
        .json()
        .catch(() => undefined)) as { callbacks?: { jobResultUrl?: unknown } } | undefined;
      const url = body?.callbacks?.jobResultUrl;
      if (typeof url === 'string') invokes.push(url);
    }
    return gateway.fetch(request);
  });
  gateways.push(gateway);
  closers.push(async () => {
    await server.close();
    await gateway.close();
  });
  return { url: server.url, invokes };
}

/**
 * A reverse proxy on a free loopback port: requests under `PREFIX` go to `127.0.0.1:target`, with
 * the prefix kept or stripped; anything else answers 404. `seen` lists the paths it forwarded.
 */
async function reverseProxy(
  target: number,
  mode: 'keep' | 'strip' | 'elsewhere',
): Promise<{ base: string; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!path.startsWith(`${PREFIX}/`)) {
      res.writeHead(404).end();
      return;
    }
    const rest = path.slice(PREFIX.length);
    const forwarded = mode === 'keep' ? path : mode === 'strip' ? rest : `/elsewhere${rest}`;
    seen.push(forwarded);
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: target,
        method: req.method,
        path: forwarded,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}${PREFIX}`, seen };
}

/** A loopback port free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = (server.address() as AddressInfo) ?? { port: 0 };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('--callback-url: the public base URL the gateway calls back, through a reverse proxy', () => {
  it.each(['strip', 'keep'] as const)(
    'the callback check passes through a proxy that %ss the prefix',
    async (mode) => {
      const gateway = await servedGateway();
      const port = await freePort();
      const proxy = await reverseProxy(port, mode);
      const run = await cli([
        ...['--url', gateway.url, '--token', TOKEN, '--only', 'callback-authorization'],
        ...['--callback-url', `${proxy.base}/`, '--callback-port', String(port)],
      ]);
      expect(run.out).toContain('pass  callback-authorization:job-result');
      expect(run.code).toBe(0);
      // The gateway was given a URL under the base, its prefix kept; the proxy forwarded it.
      expect(gateway.invokes.at(-1)).toMatch(
        new RegExp(`^${proxy.base.replace(/[.]/g, '\\.')}/job-result-[0-9a-f]{32}$`),
      );
      expect(proxy.seen).toEqual([
        `${mode === 'keep' ? PREFIX : ''}${new URL(gateway.invokes.at(-1) as string).pathname.slice(PREFIX.length)}`,
      ]);
    },
  );

  it('checkGateway: callbackUrl with callbackHost (where the receiver listens) and callbackPort', async () => {
    const gateway = await servedGateway();
    const port = await freePort();
    const proxy = await reverseProxy(port, 'strip');
    const report = await checkGateway({
      url: gateway.url,
      token: TOKEN,
      callbackUrl: proxy.base,
      callbackHost: '127.0.0.1',
      callbackPort: port,
      only: 'callback-authorization',
      pollIntervalMs: 20,
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['callback-authorization:job-result', 'passed'],
      ['callback-authorization:approval', 'skipped'],
    ]);
    expect(gateway.invokes.at(-1)?.startsWith(`${proxy.base}/job-result-`)).toBe(true);
  });

  it('a gateway refusing the callback URL: the check skips naming its origin only, never its path', async () => {
    const gateway = await servedGateway(true);
    const port = await freePort();
    const proxy = await reverseProxy(port, 'strip');
    const origin = new URL(proxy.base).origin;
    for (const json of [false, true]) {
      const run = await cli([
        ...['--url', gateway.url, '--token', TOKEN, '--only', 'callback-authorization'],
        ...['--callback-url', proxy.base, '--callback-port', String(port)],
        ...(json ? ['--json'] : []),
      ]);
      expect(run.code).toBe(0);
      expect(run.out).toContain(
        `the gateway refused the callback URL ${origin}/… (422 invalid_request); allow it in the gateway's callback URL policy`,
      );
      expect(`${run.out}${run.err}`).not.toContain(SECRET);
    }
  });

  it('a proxy forwarding to another path: the failure names the origin only, and the receiver', async () => {
    const gateway = await servedGateway();
    const port = await freePort();
    const proxy = await reverseProxy(port, 'elsewhere');
    const run = await cli([
      ...['--url', gateway.url, '--token', TOKEN, '--only', 'callback-authorization'],
      ...['--callback-url', proxy.base, '--callback-port', String(port), '--job-timeout', '100'],
    ]);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `no job-result callback arrived within 5100 ms (does ${new URL(proxy.base).origin}/… forward to http://127.0.0.1:${port}?)`,
    );
    expect(proxy.seen).toHaveLength(1);
    expect(`${run.out}${run.err}`).not.toContain(SECRET);
  });

  it('a receiver that cannot listen says so without the callback URL', async () => {
    const gateway = await servedGateway();
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    closers.push(() => new Promise((resolve) => busy.close(() => resolve())));
    const port = (busy.address() as AddressInfo).port;
    const run = await cli([
      ...['--url', gateway.url, '--token', TOKEN, '--only', 'callback-authorization'],
      ...['--callback-url', `https://tunnel.example${PREFIX}`, '--callback-port', String(port)],
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(`could not listen on 127.0.0.1:${port}: the port is in use`);
    expect(`${run.out}${run.err}`).not.toContain(SECRET);
  });

  it.each([
    [['--callback-url', 'ftp://tunnel.example/x'], 'expected an absolute http(s) URL'],
    [['--callback-url', 'tunnel.example/x'], 'expected an absolute http(s) URL'],
    [['--callback-url', 'https://tunnel.example/x?token=1'], 'without a query or fragment'],
    [['--callback-url', 'https://tunnel.example/x#frag'], 'without a query or fragment'],
    [['--callback-url', 'https://user:pw@tunnel.example/x'], 'without credentials'],
    [
      ['--callback-url', 'https://tunnel.example/x'],
      '--callback-url is a string: expected --callback-port with it (the local port the proxy or tunnel forwards to).',
    ],
    [
      ['--callback-port', '47410'],
      '--callback-port is the number 47410: expected --callback-host or --callback-url with it (the address the gateway reaches it on).',
    ],
  ])('exits 2 on a usage error, never echoing the URL: %j', async (flags, message) => {
    const run = await cli(['--url', 'http://127.0.0.1:9', '--token', TOKEN, ...flags]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    expect(run.err).toContain('Usage: svc-gateway-check');
    const line = run.err.split('\n')[0];
    expect(line).not.toMatch(/tunnel\.example\/x|pw@|token=1|#frag/);
  });

  it('checkGateway refuses an unusable callbackUrl before any request', async () => {
    const base = {
      url: IN_PROCESS_URL,
      token: TOKEN,
      callbackPort: 47410,
      fetch: () => Promise.reject(new Error('no request expected')),
    };
    for (const [callbackUrl, message] of [
      [42, 'checkGateway: callbackUrl is the number 42: expected an absolute http(s) URL'],
      [
        'https://tunnel.example/x?a=1',
        'checkGateway: callbackUrl is a string: expected a URL without a query or fragment',
      ],
      [
        'http://u:p@tunnel.example',
        'checkGateway: callbackUrl is a string: expected a URL without credentials',
      ],
    ] as const) {
      const error = await checkGateway({ ...base, callbackUrl: callbackUrl as string }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CheckOptionsError);
      expect((error as Error).message).toContain(message);
    }
  });
});
