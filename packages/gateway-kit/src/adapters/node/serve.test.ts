import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { openSocket, untilClosed } from '../../../test/raw-socket.ts';
import { GatewayConfigError } from '../../runtime/gateway-config-error.ts';
import { type ServeOptions, serve } from './serve.ts';

const gateway = fixtureGateway();

/** The status and JSON body of a raw HTTP/1.1 answer that ends with its connection. */
function envelopeOf(received: string): { status: number; error: unknown } {
  const [head = '', body = ''] = received.split('\r\n\r\n');
  const lines = head.toLowerCase().split('\r\n');
  expect(lines).toContain('content-type: application/json');
  expect(lines).toContain('connection: close');
  expect(lines).toContain(`content-length: ${Buffer.byteLength(body)}`);
  return { status: Number(head.slice(9, 12)), ...(JSON.parse(body) as { error: unknown }) };
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

  it('rejects a headers timeout above the default request timeout (30 s), naming it', async () => {
    await expect(serve(gateway, { port: 0, headersTimeoutMs: 40_000 })).rejects.toThrow(
      new GatewayConfigError(
        'serve: headersTimeoutMs is the number 40000: expected at most requestTimeoutMs (30000), or 0.',
      ),
    );
  });

  it('rejects a headers timeout above the request timeout, naming the option', async () => {
    await expect(
      serve(gateway, { port: 0, requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 }),
    ).rejects.toThrow(
      new GatewayConfigError(
        'serve: headersTimeoutMs is the number 2000: expected at most requestTimeoutMs (1000), or 0.',
      ),
    );
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const running = await serve(gateway, {
      port: 0,
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
    });
    try {
      const started = Date.now();
      const socket = openSocket(running.url);
      socket.write(
        `GET /v1/manifest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n`,
      );
      const received = await untilClosed(socket);
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(envelopeOf(received)).toEqual({
        status: 408,
        error: {
          code: 'request_timeout',
          message: 'The request was not received in time.',
          retryable: true,
        },
      });
    } finally {
      await running.close();
    }
  });

  // Node refuses these before any handler runs; its own answers have no body.
  it.each([
    [
      'headers over Node’s 16 KiB (a huge token)',
      `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${'x'.repeat(20_000)}\r\n\r\n`,
      431,
      {
        code: 'headers_too_large',
        message: 'The request headers are too large.',
        retryable: false,
      },
    ],
    [
      'a request line that is not HTTP',
      'GET /v1/manifest HTTP/9.9 nonsense\r\n\r\n',
      400,
      {
        code: 'malformed_request',
        message: 'The request is not valid HTTP/1.1.',
        retryable: false,
      },
    ],
    [
      'a chunked body whose chunk size is not hexadecimal',
      `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      400,
      {
        code: 'malformed_request',
        message: 'The request is not valid HTTP/1.1.',
        retryable: false,
      },
    ],
  ])('answers %s with an error envelope and closes', async (_case, request, status, error) => {
    const running = await serve(gateway, { port: 0 });
    try {
      const socket = openSocket(running.url);
      socket.write(request);
      expect(envelopeOf(await untilClosed(socket))).toEqual({ status, error });
      // Nothing is kept for the connection, and the server goes on serving.
      const connections = (): Promise<number> =>
        new Promise((resolve, reject) =>
          running.server.getConnections((failed, count) =>
            failed ? reject(failed) : resolve(count),
          ),
        );
      await expect.poll(connections).toBe(0);
      const answer = await fetch(`${running.url}/v1/manifest`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it.each([
    ['on loopback', {}],
    ['with every host allowed', { allowedHosts: true }],
  ] as const)(
    'answers an HTTP/1.1 request without Host with the 400 envelope (%s)',
    async (_case, options) => {
      const running = await serve(gateway, { port: 0, ...options });
      try {
        const hostless = openSocket(running.url);
        hostless.write(
          `GET /v1/manifest HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
        );
        expect(envelopeOf(await untilClosed(hostless))).toEqual({
          status: 400,
          error: {
            code: 'malformed_request',
            message: 'An HTTP/1.1 request must carry a Host header.',
            retryable: false,
          },
        });
      } finally {
        await running.close();
      }
    },
  );

  it('drops connections beyond maxConnections', async () => {
    const running = await serve(gateway, { port: 0, maxConnections: 1 });
    try {
      const accepted = once(running.server, 'connection');
      const first = openSocket(running.url);
      await accepted;
      const dropped = once(running.server, 'drop');
      const second = openSocket(running.url);
      const received = await untilClosed(second);
      await dropped;
      expect(received).toBe('');
      first.destroy();
    } finally {
      await running.close();
    }
  });
});

/** Servers listening in this process (Node's handle for a listening TCP server). */
const listening = (): number =>
  process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;

// What a careless user or a hostile configuration passes: every option of serve() is checked
// before anything listens, and the error names it (never its value).
const TIMEOUT = [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, '1000', null];
const REFUSED: [string, unknown[]][] = [
  ['port', [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 65_536, 2 ** 53, '8080', '', null]],
  ['hostname', ['', ' 127.0.0.1', '[::1]', 'http://0.0.0.0', 'localhost:8787', 127_001, null]],
  ['requestTimeoutMs', TIMEOUT],
  ['headersTimeoutMs', TIMEOUT],
  ['keepAliveTimeoutMs', TIMEOUT],
  ['maxConnections', [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '512', null]],
  ['drainMaxBytes', [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1024', null]],
  ['drainTimeoutMs', TIMEOUT],
  ['sendTimeoutMs', TIMEOUT],
  ['trustProxy', ['false', 0, null]],
  ['pinCallbackAddresses', ['false', 1, null]],
  ['allowedHosts', ['dev.example.test', false, 'true', null, {}]],
  [
    'allowedHosts[1]',
    [
      ['dev.example.test', 'http://x.test/'],
      ['a.test', ''],
      ['a.test', 1],
    ],
  ],
];

describe('serve: options', () => {
  it.each(REFUSED.flatMap(([option, values]) => values.map((value) => [option, value] as const)))(
    'serve({ %s: %j }) rejects with a GatewayConfigError naming the option, before listening',
    async (option, value) => {
      const before = listening();
      const key = option.replace(/\[.*/, '');
      const refused = serve(gateway, { port: 0, [key]: value } as ServeOptions);
      await expect(refused).rejects.toThrow(GatewayConfigError);
      const path = option.replace(/[[\]]/g, '\\$&');
      await expect(refused).rejects.toThrow(new RegExp(`^serve: ${path} is `));
      expect(listening()).toBe(before);
    },
  );

  it.each([
    [{ host: '0.0.0.0' }, 'serve: unknown option "host" (known: '],
    [{ maxConnection: 8 }, 'serve: unknown option "maxConnection" (known: '],
    [null, 'serve: options is null: expected an options object.'],
    ['8787', 'serve: options is a string: expected an options object.'],
  ])('serve(gateway, %j) is refused', async (options, message) => {
    await expect(serve(gateway, options as ServeOptions)).rejects.toThrow(message);
  });

  it('says an empty hostname may be an unset environment variable (Node would listen everywhere)', async () => {
    await expect(serve(gateway, { port: 0, hostname: '' })).rejects.toThrow(
      'serve: hostname is an empty string: is an environment variable unset? (expected an IP address or a host name',
    );
  });

  it('keeps every valid edge: port 0 picks a free port, 0 turns a timeout off', async () => {
    const options: ServeOptions = {
      port: 0,
      hostname: 'localhost',
      requestTimeoutMs: 0,
      headersTimeoutMs: 0,
      keepAliveTimeoutMs: 0,
      maxConnections: Number.MAX_SAFE_INTEGER,
      drainMaxBytes: 0,
      drainTimeoutMs: 0,
      trustProxy: false,
      pinCallbackAddresses: true,
    };
    const running = await serve(gateway, options);
    try {
      expect(Number(new URL(running.url).port)).toBeGreaterThan(0);
      expect(running.server.requestTimeout).toBe(0);
      expect(running.server.headersTimeout).toBe(0);
      expect(running.server.keepAliveTimeout).toBe(0);
      expect(running.server.maxConnections).toBe(Number.MAX_SAFE_INTEGER);
      const answer = await fetch(`${running.url}/v1/manifest`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('takes the longest timeouts a timer holds', async () => {
    const max = 2 ** 31 - 1;
    const running = await serve(gateway, {
      port: 0,
      requestTimeoutMs: max,
      headersTimeoutMs: max,
      keepAliveTimeoutMs: max,
      drainTimeoutMs: max,
    });
    try {
      expect(running.server.requestTimeout).toBe(max);
      expect(running.server.keepAliveTimeout).toBe(max);
    } finally {
      await running.close();
    }
  });
});
