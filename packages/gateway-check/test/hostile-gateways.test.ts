import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import { CheckOptionsError } from '../src/check/options.ts';
import { isGatewayCheckError } from '../src/errors/gateway-check-error.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { cli } from './gateways.ts';
import { serveHandler } from './serve-handler.ts';

// Gateways that try to keep the checker busy, send it elsewhere or swamp it: the run ends within
// its deadline, follows no redirect, checks a bounded number of actions, and exits with the code
// of what happened (0 passed, 1 contract broken, 2 could not run).

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
async function listen(listener: Listener): Promise<string> {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const gateway = referenceGateway();
let manifest: { actions: Record<string, unknown>[] } & Record<string, unknown>;
/** Requests that reached the host a redirect points to: must stay at zero. */
let elsewhereHits = 0;
let elsewhere: string;

beforeAll(async () => {
  const answer = await gateway.fetch(
    new Request('http://gateway.test/v1/manifest', {
      headers: { authorization: `Bearer ${TOKEN}` },
    }),
  );
  manifest = (await answer.json()) as typeof manifest;
  elsewhere = await listen((_req, res) => {
    elsewhereHits += 1;
    res.end('{}');
  });
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await gateway.close();
});

describe('exit codes', () => {
  it('exits 2 ("could not run") when nothing listens at the URL, saying so', async () => {
    const closed = await listen(() => {});
    // Closed for sure: its listening socket is gone once 'close' is emitted.
    const server = servers.at(-1)!;
    await new Promise((resolve) => server.close(resolve));
    const run = await cli(['--url', closed, '--token', TOKEN]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      'could not run to the end: no answer to GET /v1/manifest: the gateway could not be reached',
    );
    // Not a broken rule: the manifest check could not run, and says why.
    expect(run.out).toContain('skip  manifest-shape:manifest');
    expect(run.out).toMatch(/0 passed, 0 failed, 1 skipped/);
  });

  it('exits 2 when the overall deadline passes, saying so', async () => {
    // A gateway that answers late (the slowness is the case, not a wait for something).
    const slow = await serveHandler(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return gateway.fetch(request);
    });
    try {
      const late = await cli(['--url', slow.url, '--token', TOKEN, '--deadline', '1000']);
      expect(late.code).toBe(2);
      expect(late.err).toContain('the overall deadline of 1000 ms passed');
    } finally {
      await slow.close();
    }
  });
});

describe('a dribbling gateway', () => {
  it('ends within the deadline (plus at most one request timeout), reported incomplete', async () => {
    // Every answer trickles one byte every 250 ms: 10 s per answer, within --timeout each time.
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify({ pad: ' '.repeat(38) });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(body[sent]);
        sent += 1;
        if (sent === body.length) {
          clearInterval(timer);
          res.end();
        }
      }, 250);
    });
    const started = Date.now();
    const report = await checkGateway({ url, token: TOKEN, deadlineMs: 3_000, timeoutMs: 20_000 });
    const took = Date.now() - started;
    expect(took).toBeLessThan(3_000 + 1_000);
    expect(report.ok).toBe(false);
    expect(report.incomplete).toMatch(/overall deadline of 3000 ms passed/);
  });
});

describe('a redirecting gateway', () => {
  it('reports a 307 on the manifest as a failure and never follows it', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(307, { location: `${elsewhere}/v1/manifest` });
      res.end();
    });
    const hits = elsewhereHits;
    const report = await checkGateway({ url, token: TOKEN });
    const check = report.checks.find((c) => c.id === 'manifest-shape:manifest');
    expect(check?.status).toBe('failed');
    expect(check?.message).toContain(`307 (a redirect to ${elsewhere}/v1/manifest, not followed)`);
    expect(elsewhereHits).toBe(hits);
    expect(report.ok).toBe(false);
  });

  it('reports a 307 on invoke as a failure and never sends the invoke (or the token) elsewhere', async () => {
    const redirecting = await serveHandler(async (request) => {
      if (new URL(request.url).pathname === '/v1/invoke') {
        return new Response(null, { status: 307, headers: { location: `${elsewhere}/v1/invoke` } });
      }
      return gateway.fetch(request);
    });
    try {
      const hits = elsewhereHits;
      const run = await cli([
        '--url',
        redirecting.url,
        '--token',
        TOKEN,
        '--only',
        'invoke-response-shape',
      ]);
      expect(run.code).toBe(1);
      expect(run.out).toContain('307 (a redirect to');
      expect(run.out).toContain('not followed');
      expect(elsewhereHits).toBe(hits);
    } finally {
      await redirecting.close();
    }
  });
});

describe('a gateway with 10 000 actions', () => {
  it('checks the first maxActions (100 by default) and names the rest in one skipped check', async () => {
    const template = {
      ...manifest.actions.find((a) => a.id === 'find-customer')!,
      description: 'One of many.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    };
    const big = JSON.stringify({
      ...manifest,
      actions: Array.from({ length: 10_000 }, (_, i) => ({ ...template, id: `action-${i}` })),
    });
    const huge = await serveHandler(async (request) =>
      new URL(request.url).pathname === '/v1/manifest'
        ? new Response(big, { headers: { 'content-type': 'application/json' } })
        : gateway.fetch(request),
    );
    expect(big.length).toBeLessThan(4 * 1024 * 1024);
    try {
      const before = process.memoryUsage().heapUsed;
      const report = await checkGateway({ url: huge.url, token: TOKEN, only: 'manifest-*' });
      expect(report.checks.find((c) => c.id === 'manifest-shape:actions-checked')).toMatchObject({
        status: 'skipped',
        message: expect.stringContaining('the manifest lists 10000 actions: only the first 100'),
      });
      expect(report.checks.filter((c) => c.id.startsWith('manifest-input-schema:'))).toHaveLength(
        100,
      );
      const run = await checkGateway({
        url: huge.url,
        token: TOKEN,
        maxActions: 5,
        deadlineMs: 60_000,
      });
      expect(run.checks.length).toBeLessThan(150);
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    } finally {
      await huge.close();
    }
  }, 60_000);
});

describe('a dribbling, redirecting, 10 000-action gateway', () => {
  it('ends within its deadline with a clear failure, following nothing', async () => {
    const template = {
      ...manifest.actions.find((a) => a.id === 'find-customer')!,
      description: 'One of many.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    };
    const big = JSON.stringify({
      ...manifest,
      actions: Array.from({ length: 10_000 }, (_, i) => ({ ...template, id: `action-${i}` })),
    });
    const url = await listen((req, res) => {
      if (req.url === '/v1/manifest') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(big);
      }
      if (req.url === '/v1/invoke') {
        res.writeHead(307, { location: `${elsewhere}/v1/invoke` });
        return res.end();
      }
      // Everything else trickles: one byte every 200 ms.
      res.writeHead(401, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 200);
    });
    const hits = elsewhereHits;
    const before = process.memoryUsage().heapUsed;
    const started = Date.now();
    const run = await cli(['--url', url, '--token', TOKEN, '--deadline', '4000']);
    expect(Date.now() - started).toBeLessThan(4_000 + 1_000);
    expect(run.code).toBe(2);
    expect(run.err).toContain('the overall deadline of 4000 ms passed');
    expect(run.out).toContain('the manifest lists 10000 actions: only the first 100');
    expect(run.out).toContain('307 (a redirect to');
    expect(elsewhereHits).toBe(hits);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
  }, 30_000);
});

describe('checkGateway options', () => {
  it.each([
    [
      { url: 'ftp://x', token: TOKEN },
      'checkGateway: url is a string: expected an absolute http(s) URL.',
    ],
    [
      { url: 'http://user:GwSecret-123@x', token: TOKEN },
      'checkGateway: url is a string: expected a URL without credentials (the token goes in token).',
    ],
    // Sent to /base?key=…/v1/manifest, and the key printed in the report.
    [
      { url: 'https://gw.example/base?key=GwSecret-123', token: TOKEN },
      'checkGateway: url is a string: expected a URL without a query or fragment (routes are paths under it).',
    ],
    [
      { url: 'http://x', token: '' },
      'checkGateway: token is an empty string: is an environment variable unset? (expected a non-empty string)',
    ],
    [
      { url: 'http://x', token: 'a b' },
      'checkGateway: token is a string: expected no spaces or control characters.',
    ],
    [
      { url: 'http://x', token: TOKEN, timeoutMs: 0 },
      'checkGateway: timeoutMs is the number 0: expected a whole number of milliseconds from 1 to 2147483647.',
    ],
    [
      { url: 'http://x', token: TOKEN, deadlineMs: 1.5 },
      'checkGateway: deadlineMs is the number 1.5: expected a whole number of milliseconds from 1 to 2147483647.',
    ],
    [
      { url: 'http://x', token: TOKEN, maxActions: -1 },
      'checkGateway: maxActions is the number -1: expected a whole number above 0.',
    ],
    [
      { url: 'http://x', token: TOKEN, fetch: 'global' },
      'checkGateway: fetch is a string: expected a function.',
    ],
    [
      { url: 'http://x', token: TOKEN, signal: 5_000 },
      'checkGateway: signal is the number 5000: expected an AbortSignal.',
    ],
  ])('refuses %j before any request', async (options, message) => {
    const error = await checkGateway(options as Parameters<typeof checkGateway>[0]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect(isGatewayCheckError(error)).toBe(true);
    expect((error as Error).message).toBe(message);
  });

  it.each(
    ['timeoutMs', 'jobTimeoutMs', 'pollIntervalMs', 'deadlineMs', 'maxActions'].flatMap((option) =>
      [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '100', null]
        // A duration a timer waits for is at most 2^31-1 ms (longer fires at once).
        .concat(option === 'maxActions' ? [] : [2 ** 31])
        .map((value) => [option, value] as const),
    ),
  )('refuses %s = %j, naming the option, before any request', async (option, value) => {
    let requests = 0;
    const error = await checkGateway({
      url: 'http://x',
      token: TOKEN,
      [option]: value,
      fetch: () => {
        requests += 1;
        return Promise.reject(new Error('no request expected'));
      },
    } as Parameters<typeof checkGateway>[0]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect((error as Error).message).toMatch(new RegExp(`^checkGateway: ${option} is `));
    expect(requests).toBe(0);
  });

  it('names the same problems as the CLI, with the flags', async () => {
    const run = await cli(['--url', 'http://x', '--token', TOKEN, '--deadline', '1.5']);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      'svc-gateway-check: --deadline is a string: expected a whole number of milliseconds from 1 to 2147483647.',
    );
  });
});
