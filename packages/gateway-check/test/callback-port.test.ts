import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import { CheckOptionsError } from '../src/errors/check-options-error.ts';
import type { Handler } from './fixtures/broken-gateways.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { cli, IN_PROCESS_URL, inProcess } from './gateways.ts';
import { serveHandler } from './serve-handler.ts';

// `--callback-host HOST` made the receiver listen on a port it picked itself: a gateway that
// reaches the checker through one forwarded or opened port (docker -p, a firewall) could not be
// checked. `--callback-port N` (`callbackPort`) chooses it; `--callback-host HOST:PORT` used to
// be taken as a host and give the gateway `http://HOST:PORT:<random>`.

const gateway = referenceGateway();
/** The `callbacks.jobResultUrl` of every invoke the gateway got. */
const callbackUrls: string[] = [];
const recording: Handler = async (request) => {
  if (request.method === 'POST' && new URL(request.url).pathname === '/v1/invoke') {
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as { callbacks?: { jobResultUrl?: unknown } } | undefined;
    const url = body?.callbacks?.jobResultUrl;
    if (typeof url === 'string') callbackUrls.push(url);
  }
  return gateway.fetch(request);
};
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.close();
  await gateway.close();
});

/** Listens on a free loopback port and keeps it: a port in use. */
async function occupiedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

/** A loopback port free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the callback receiver port', () => {
  it('--callback-port N: the receiver listens there and the gateway is given that port', async () => {
    const served = await serveHandler(recording);
    try {
      const port = await freePort();
      const run = await cli([
        ...['--url', served.url, '--token', TOKEN, '--only', 'callback-authorization'],
        ...['--callback-host', '127.0.0.1', '--callback-port', String(port)],
      ]);
      expect(run.out).toContain('pass  callback-authorization:job-result');
      expect(run.code).toBe(0);
      expect(callbackUrls.at(-1)).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:${port}/job-result-`),
      );
    } finally {
      await served.close();
    }
  });

  it('a port in use: exit 2 ("could not run"), one plain line saying so, no stack, no failed rule', async () => {
    const served = await serveHandler(recording);
    try {
      const port = await occupiedPort();
      const run = await cli([
        ...['--url', served.url, '--token', TOKEN, '--only', 'callback-authorization,auth-bearer'],
        ...['--callback-host', '127.0.0.1', '--callback-port', String(port)],
      ]);
      const why = `the callback receiver could not listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); free it or choose another --callback-port (callbackPort)`;
      expect(run.code).toBe(2);
      expect(run.err).toBe(`svc-gateway-check: could not run to the end: ${why}`);
      expect(run.out).toContain(
        `skip  callback-authorization:job-result  the job-result callback arrives with callbacks.authorization verbatim\n      ${why}`,
      );
      // The other checks ran, and passed.
      expect(run.out).toContain('16 passed, 0 failed, 2 skipped (18 checks)');
      expect(`${run.out}${run.err}`).not.toMatch(/\n\s+at /);
    } finally {
      await served.close();
    }
  });

  it('checkGateway reports a port in use as an incomplete run, not a broken contract', async () => {
    const port = await occupiedPort();
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(recording),
      callbackHost: '127.0.0.1',
      callbackPort: port,
      only: 'callback-authorization',
    });
    expect(report.ok).toBe(false);
    expect(report.counts.failed).toBe(0);
    expect(report.incomplete).toContain(
      `could not listen on 127.0.0.1:${port}: the port is in use`,
    );
  });

  it.each([
    [
      ['--callback-host', '127.0.0.1', '--callback-port', 'abc'],
      '--callback-port is a string: expected a port number from 1 to 65535.',
    ],
    [
      ['--callback-host', '127.0.0.1', '--callback-port', '0'],
      '--callback-port is the number 0: expected a port number from 1 to 65535.',
    ],
    [
      ['--callback-host', '127.0.0.1', '--callback-port', '65536'],
      '--callback-port is the number 65536: expected a port number from 1 to 65535.',
    ],
    [
      ['--callback-port', '47150'],
      '--callback-port is the number 47150: expected --callback-host or --callback-url with it (the address the gateway reaches it on).',
    ],
    [
      ['--callback-host', '127.0.0.1:47150'],
      '--callback-host is a string: expected a host name or an IP address (IPv6 in brackets), without a scheme, path or port (the port goes in --callback-port).',
    ],
    [
      ['--callback-host', 'http://host.docker.internal'],
      '--callback-host is a string: expected a host name or an IP address',
    ],
  ])('exits 2 on a usage error, as for the other flags: %j', async (flags, message) => {
    const run = await cli(['--url', 'http://127.0.0.1:9', '--token', TOKEN, ...flags]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(`svc-gateway-check: ${message}`);
    expect(run.err).toContain('Usage: svc-gateway-check');
  });

  it('checkGateway refuses an unusable callbackPort or callbackHost before any request', async () => {
    const base = {
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: () => Promise.reject(new Error('no request expected')),
    };
    for (const [options, message] of [
      [
        { callbackHost: '127.0.0.1', callbackPort: 1.5 },
        'checkGateway: callbackPort is the number 1.5: expected a port number from 1 to 65535.',
      ],
      [
        { callbackHost: '127.0.0.1', callbackPort: '8080' },
        'checkGateway: callbackPort is a string: expected a port number from 1 to 65535.',
      ],
      [
        { callbackPort: 8080 },
        'checkGateway: callbackPort is the number 8080: expected callbackHost or callbackUrl with it (the address the gateway reaches it on).',
      ],
      [
        { callbackHost: '::1' },
        'checkGateway: callbackHost is a string: expected a host name or an IP address (IPv6 in brackets), without a scheme, path or port (the port goes in callbackPort).',
      ],
    ] as const) {
      const error = await checkGateway({ ...base, ...(options as object) }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CheckOptionsError);
      expect((error as Error).message).toBe(message);
    }
  });

  it('still accepts a name, an IPv4 or a bracketed IPv6 host without a port, and none', async () => {
    for (const callbackHost of ['127.0.0.1', 'localhost', 'host.docker.internal', '[::1]', '']) {
      const report = await checkGateway({
        url: IN_PROCESS_URL,
        token: TOKEN,
        fetch: inProcess(recording),
        callbackHost,
        only: 'manifest-shape',
      });
      expect(report.ok).toBe(true);
    }
  });
});
