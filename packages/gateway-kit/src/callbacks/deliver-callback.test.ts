import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallbackConfigError } from './callback-config-error.ts';
import {
  backoffDelay,
  type CallbackAttemptEvent,
  type DeliverCallbackOptions,
  deliverCallback,
  parseRetryAfter,
} from './deliver-callback.ts';

// A Standard Webhooks secret: 'whsec_' + base64 of 24 random-looking bytes.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const AUTHORIZATION = 'Bearer cb-token.with.dots';
const DEV = { allowInsecureLoopback: true } as const;

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP receiver on 127.0.0.1 that answers request N with handlers[N] (the last repeats). */
async function startReceiver(...handlers: Handler[]) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const handler = handlers[Math.min(received.length, handlers.length) - 1]!;
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks/job?tenant=7`,
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, headers).end();
  };
const hang: Handler = () => undefined;
const dropConnection: Handler = (req) => req.socket.destroy();

let receivers: Array<{ close: () => Promise<void> }> = [];
async function receiver(...handlers: Handler[]) {
  const started = await startReceiver(...handlers);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  vi.useRealTimers();
});

const noSleep = async () => undefined;
const job = { jobId: 'job_1', status: 'completed', outputText: 'Done.' };

function options(url: string, extra: Partial<DeliverCallbackOptions> = {}): DeliverCallbackOptions {
  return {
    url,
    body: { job },
    webhookId: 'job_1_completed',
    urlPolicy: DEV,
    sleep: noSleep,
    ...extra,
  };
}

/** An injected fetch answering with the given statuses in turn (the last repeats). */
function fetchAnswering(...statuses: Array<number | Response>) {
  let calls = 0;
  const fn = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => {
    const next = statuses[Math.min(calls++, statuses.length - 1)]!;
    return typeof next === 'number' ? new Response(null, { status: next }) : next;
  });
  return fn;
}

describe('deliverCallback: what a receiver gets', () => {
  it('POSTs the JSON body with Authorization verbatim and Standard Webhooks headers that verify', async () => {
    const r = await receiver(status(204));
    const before = Math.floor(Date.now() / 1000);
    const result = await deliverCallback(
      options(r.url, { authorization: AUTHORIZATION, signingSecret: SECRET }),
    );

    expect(result).toEqual({ delivered: true, attempts: 1, status: 204 });
    expect(r.received).toHaveLength(1);
    const [request] = r.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/callbacks/job?tenant=7');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(AUTHORIZATION);
    expect(request!.headers['webhook-id']).toBe('job_1_completed');
    const timestamp = Number(request!.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(request!.body)).toEqual({ job });
    // What a receiver does: verify the raw body with the same secret.
    const verified = new Webhook(SECRET).verify(
      request!.body,
      request!.headers as Record<string, string>,
    );
    expect(verified).toEqual({ job });
  });

  it('sends a non-Bearer authorization value exactly as given', async () => {
    const r = await receiver(status(200));
    await deliverCallback(options(r.url, { authorization: 'Token abc123==' }));
    expect(r.received[0]!.headers.authorization).toBe('Token abc123==');
  });

  it('a signature made with another secret does not verify', async () => {
    const r = await receiver(status(200));
    await deliverCallback(options(r.url, { signingSecret: SECRET }));
    const other = new Webhook('whsec_c2VjcmV0LW9mLXNvbWVib2R5LWVsc2U=');
    expect(() =>
      other.verify(r.received[0]!.body, r.received[0]!.headers as Record<string, string>),
    ).toThrow();
  });

  it('omits webhook-signature without a secret and Authorization without a credential', async () => {
    const r = await receiver(status(200));
    await deliverCallback(options(r.url));
    const headers = r.received[0]!.headers;
    expect(headers['webhook-signature']).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    expect(headers['webhook-id']).toBe('job_1_completed');
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
  });

  it('keeps webhook-id and body across retries but re-stamps and re-signs every attempt', async () => {
    const r = await receiver(status(503), status(500), status(200));
    const start = Date.now();
    let tick = 0;
    // 61 s between attempts: distinct timestamps, all within the verifier's 5-minute tolerance.
    const now = () => start - 130_000 + 61_000 * tick++;
    const result = await deliverCallback(options(r.url, { signingSecret: SECRET, now }));

    expect(result).toEqual({ delivered: true, attempts: 3, status: 200 });
    const ids = r.received.map((req) => req.headers['webhook-id']);
    expect(new Set(ids)).toEqual(new Set(['job_1_completed']));
    expect(new Set(r.received.map((req) => req.body)).size).toBe(1);
    const stamps = r.received.map((req) => Number(req.headers['webhook-timestamp']));
    expect(new Set(stamps).size).toBe(3);
    expect(new Set(r.received.map((req) => req.headers['webhook-signature'])).size).toBe(3);
    for (const req of r.received) {
      expect(() =>
        new Webhook(SECRET).verify(req.body, req.headers as Record<string, string>),
      ).not.toThrow();
    }
  });
});

describe('deliverCallback: what is retried and what stops', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i and then delivers', async (code) => {
    const r = await receiver(status(code), status(200));
    const result = await deliverCallback(options(r.url));
    expect(result).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(r.received).toHaveLength(2);
  });

  it('retries a dropped connection', async () => {
    const events: CallbackAttemptEvent[] = [];
    const r = await receiver(dropConnection, status(200));
    const result = await deliverCallback(options(r.url, { onAttempt: (e) => events.push(e) }));
    expect(result).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(events.map((e) => [e.outcome, e.error])).toEqual([
      ['retrying', 'network'],
      ['delivered', undefined],
    ]);
  });

  it('gives each attempt its own timeout and retries after it', async () => {
    const events: CallbackAttemptEvent[] = [];
    const r = await receiver(hang, status(200));
    const started = Date.now();
    const result = await deliverCallback(
      options(r.url, { attemptTimeoutMs: 150, onAttempt: (e) => events.push(e) }),
    );
    expect(result).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(events[0]).toMatchObject({ attempt: 1, outcome: 'retrying', error: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('reports timeout as lastError when every attempt times out', async () => {
    const r = await receiver(hang);
    const result = await deliverCallback(options(r.url, { attemptTimeoutMs: 50, maxAttempts: 2 }));
    expect(result).toEqual({
      delivered: false,
      attempts: 2,
      reason: 'exhausted',
      lastError: 'timeout',
    });
  });

  it('the attempt timeout covers a DNS check that never answers, and nothing is sent', async () => {
    const fetch = fetchAnswering(200);
    const resolveHost = vi.fn(() => new Promise<string[]>(() => undefined));
    const events: CallbackAttemptEvent[] = [];
    const started = Date.now();
    const result = await deliverCallback(
      options('https://hooks.example.com/cb', {
        fetch,
        resolveHost,
        attemptTimeoutMs: 50,
        maxAttempts: 2,
        onAttempt: (e) => events.push(e),
      }),
    );
    expect(result).toEqual({
      delivered: false,
      attempts: 2,
      reason: 'exhausted',
      lastError: 'timeout',
    });
    expect(events.map((e) => e.error)).toEqual(['timeout', 'timeout']);
    expect(resolveHost).toHaveBeenCalledTimes(2);
    expect(fetch).not.toHaveBeenCalled();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('the attempt timeout covers DNS check and request together, not each separately', async () => {
    let fetched = 0;
    // The DNS check takes 350 ms of the 400 ms budget; the request then never answers.
    const resolveHost = () =>
      new Promise<string[]>((resolve) => setTimeout(() => resolve(['93.184.215.14']), 350));
    const started = Date.now();
    const result = await deliverCallback(
      options('https://hooks.example.com/cb', {
        resolveHost,
        fetch: () => {
          fetched += 1;
          return new Promise<Response>(() => undefined);
        },
        attemptTimeoutMs: 400,
        maxAttempts: 1,
      }),
    );
    const elapsed = Date.now() - started;
    expect(result).toEqual({
      delivered: false,
      attempts: 1,
      reason: 'exhausted',
      lastError: 'timeout',
    });
    expect(fetched).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(395);
    // Separate budgets would take at least 350 + 400 ms.
    expect(elapsed).toBeLessThan(750);
  });

  it('ends an attempt whose fetch ignores the abort signal and never answers', async () => {
    const fetch = vi.fn(() => new Promise<Response>(() => undefined));
    const result = await deliverCallback(
      options('https://hooks.example.com/cb', { fetch, attemptTimeoutMs: 30, maxAttempts: 3 }),
    );
    expect(result).toEqual({
      delivered: false,
      attempts: 3,
      reason: 'exhausted',
      lastError: 'timeout',
    });
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('stops after one attempt on 410 Gone', async () => {
    const r = await receiver(status(410), status(200));
    const result = await deliverCallback(options(r.url));
    expect(result).toEqual({ delivered: false, attempts: 1, reason: 'gone', lastStatus: 410 });
    expect(r.received).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 422])(
    'stops after one attempt on %i (client_error)',
    async (code) => {
      const r = await receiver(status(code), status(200));
      const result = await deliverCallback(options(r.url));
      expect(result).toEqual({
        delivered: false,
        attempts: 1,
        reason: 'client_error',
        lastStatus: code,
      });
      expect(r.received).toHaveLength(1);
    },
  );

  it.each([301, 302, 307, 308])('does not follow a %i redirect', async (code) => {
    const target = await receiver(status(200));
    const r = await receiver(status(code, { location: `${target.origin}/elsewhere` }));
    const result = await deliverCallback(options(r.url, { authorization: AUTHORIZATION }));
    expect(result).toEqual({
      delivered: false,
      attempts: 1,
      reason: 'redirected',
      lastStatus: code,
    });
    expect(target.received).toHaveLength(0);
  });

  it('treats an opaque redirect (browser/worker fetch) as redirected', async () => {
    const opaque = { type: 'opaqueredirect', status: 0, headers: new Headers(), body: null };
    const fetch = fetchAnswering(opaque as unknown as Response);
    const result = await deliverCallback(options('https://hooks.example.com/x', { fetch }));
    expect(result).toMatchObject({ delivered: false, attempts: 1, reason: 'redirected' });
    expect(fetch.mock.calls[0]![1]).toMatchObject({ method: 'POST', redirect: 'manual' });
  });

  it('gives up after maxAttempts with exhausted and the last status', async () => {
    const r = await receiver(status(500), status(500), status(503));
    const result = await deliverCallback(options(r.url, { maxAttempts: 3 }));
    expect(result).toEqual({ delivered: false, attempts: 3, reason: 'exhausted', lastStatus: 503 });
    expect(r.received).toHaveLength(3);
  });

  it('makes 8 attempts by default', async () => {
    const fetch = fetchAnswering(500);
    const result = await deliverCallback(options('https://hooks.example.com/x', { fetch }));
    expect(result).toMatchObject({ delivered: false, attempts: 8, reason: 'exhausted' });
    expect(fetch).toHaveBeenCalledTimes(8);
  });
});

describe('deliverCallback: backoff schedule', () => {
  it('waits base * 2^(n-1) scaled by the jitter draw, capped at maxDelayMs', async () => {
    const sleep = vi.fn(async (_ms: number) => undefined);
    const fetch = fetchAnswering(503);
    await deliverCallback(
      options('https://hooks.example.com/x', {
        fetch,
        sleep,
        random: () => 0.999_999,
        baseDelayMs: 100,
        maxDelayMs: 1_000,
        maxAttempts: 7,
      }),
    );
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it('uses the full jitter range: a draw of 0 retries at once, 0.5 waits half the ceiling', async () => {
    for (const [draw, expected] of [
      [0, [0, 0, 0]],
      [0.5, [500, 1000, 2000]],
    ] as const) {
      const sleep = vi.fn(async (_ms: number) => undefined);
      await deliverCallback(
        options('https://hooks.example.com/x', {
          fetch: fetchAnswering(500),
          sleep,
          random: () => draw,
          maxAttempts: 4,
        }),
      );
      expect(sleep.mock.calls.map(([ms]) => ms)).toEqual(expected);
    }
  });

  it('property: every delay lies in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, baseDelayMs, maxDelayMs, draw) => {
          const delay = backoffDelay(retry, { baseDelayMs, maxDelayMs, random: () => draw });
          const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
          return Number.isInteger(delay) && delay >= 0 && delay <= ceiling;
        },
      ),
    );
  });

  describe('with fake timers and the default sleep', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    });

    it('sends the retry only once the backoff has elapsed', async () => {
      const fetch = fetchAnswering(503, 200);
      const pending = deliverCallback({
        url: 'https://hooks.example.com/x',
        body: { job },
        webhookId: 'w1',
        fetch,
        random: () => 0.5, // first ceiling 1000 ms → 500 ms
      });
      await vi.advanceTimersByTimeAsync(499);
      expect(fetch).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(await pending).toEqual({ delivered: true, attempts: 2, status: 200 });
    });
  });
});

// The one Retry-After rule of the SDK: the same table runs against @svc/gateway-kit's callback
// delivery and @svc/workspace-client's retries (docs/decisions.md, "Retry-After").
const RETRY_AFTER_CASES: readonly (readonly [string | null, number | undefined])[] = [
  [' 120 ', 120_000],
  ['0', 0],
  ['Sun, 01 Mar 2026 12:00:05 GMT', 5_000],
  ['Sunday, 01-Mar-26 12:00:05 GMT', 5_000], // obsolete RFC 850 form
  ['Sun Mar  1 12:00:05 2026', 5_000], // asctime: no zone, GMT by definition
  ['Sat, 28 Feb 2026 12:00:00 GMT', 0], // a date in the past: retry now
  ['1.5', undefined], // delay-seconds is a whole number
  ['-5', undefined],
  ['2026-03-01T12:00:05Z', undefined], // not an HTTP date
  ['soon 12', undefined],
  ['', undefined],
  [null, undefined],
];

describe('deliverCallback: Retry-After', () => {
  async function delaysFor(retryAfter: string, extra: Partial<DeliverCallbackOptions> = {}) {
    const sleep = vi.fn(async (_ms: number) => undefined);
    const answer = new Response(null, { status: 429, headers: { 'retry-after': retryAfter } });
    await deliverCallback(
      options('https://hooks.example.com/x', {
        fetch: fetchAnswering(answer, 200),
        sleep,
        random: () => 0,
        ...extra,
      }),
    );
    return sleep.mock.calls.map(([ms]) => ms);
  }

  it('waits the number of seconds given', async () => {
    expect(await delaysFor('3')).toEqual([3_000]);
  });

  it('waits until an HTTP date', async () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(await delaysFor('Sun, 01 Mar 2026 12:00:05 GMT', { now: () => now })).toEqual([5_000]);
  });

  it('caps the wait at maxDelayMs', async () => {
    expect(await delaysFor('3600', { maxDelayMs: 10_000 })).toEqual([10_000]);
  });

  it('falls back to backoff when the value is unparseable', async () => {
    expect(await delaysFor('soon', { random: () => 0.5 })).toEqual([500]);
  });

  it.each(RETRY_AFTER_CASES)('parseRetryAfter(%j) is %j ms', (value, expected) => {
    expect(parseRetryAfter(value, Date.parse('2026-03-01T12:00:00Z'))).toBe(expected);
  });

  it('retries at once for a date in the past', async () => {
    expect(await delaysFor(new Date(Date.now() - 60_000).toUTCString())).toEqual([0]);
  });
});

describe('deliverCallback: abort', () => {
  it('does not send anything when the signal is already aborted', async () => {
    const fetch = fetchAnswering(200);
    const result = await deliverCallback(
      options('https://hooks.example.com/x', { fetch, signal: AbortSignal.abort() }),
    );
    expect(result).toEqual({ delivered: false, attempts: 0, reason: 'aborted' });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('stops at once while waiting to retry', async () => {
    const controller = new AbortController();
    const fetch = fetchAnswering(503);
    const pending = deliverCallback({
      url: 'https://hooks.example.com/x',
      body: { job },
      webhookId: 'w1',
      fetch,
      random: () => 0.999,
      baseDelayMs: 60_000,
      signal: controller.signal,
      onAttempt: (event) => {
        if (event.outcome === 'retrying') setTimeout(() => controller.abort(), 10);
      },
    });
    const started = Date.now();
    expect(await pending).toEqual({
      delivered: false,
      attempts: 1,
      reason: 'aborted',
      lastStatus: 503,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('stops at once during an attempt that hangs', async () => {
    const controller = new AbortController();
    // The receiver never answers: the abort comes once the attempt reached it.
    const r = await receiver(() => controller.abort());
    const result = await deliverCallback(
      options(r.url, { signal: controller.signal, attemptTimeoutMs: 30_000 }),
    );
    expect(result).toEqual({ delivered: false, attempts: 1, reason: 'aborted' });
  });
});

describe('deliverCallback: refusals before sending', () => {
  it('refuses a URL the SSRF guard refuses, without sending', async () => {
    const fetch = fetchAnswering(200);
    const result = await deliverCallback({
      url: 'https://169.254.169.254/latest/meta-data/',
      body: { job },
      webhookId: 'w1',
      fetch,
    });
    expect(result).toEqual({
      delivered: false,
      attempts: 0,
      reason: 'refused_url',
      refusal: 'link_local_address',
    });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses the local test receiver without the dev opt-in', async () => {
    const r = await receiver(status(200));
    const result = await deliverCallback({ url: r.url, body: { job }, webhookId: 'w1' });
    expect(result).toMatchObject({
      delivered: false,
      reason: 'refused_url',
      refusal: 'loopback_address',
    });
    expect(r.received).toHaveLength(0);
  });

  it('refuses a name that resolves to a private address when resolveHost is given', async () => {
    const fetch = fetchAnswering(200);
    const result = await deliverCallback(
      options('https://rebind.example.com/cb', { fetch, resolveHost: async () => ['10.0.0.7'] }),
    );
    expect(result).toEqual({
      delivered: false,
      attempts: 0,
      reason: 'refused_url',
      refusal: 'resolves_to_blocked_address',
    });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('retries a failed DNS lookup', async () => {
    const events: CallbackAttemptEvent[] = [];
    const fetch = fetchAnswering(200);
    const resolveHost = vi
      .fn<(hostname: string) => Promise<string[]>>()
      .mockRejectedValueOnce(new Error('EAI_AGAIN'))
      .mockResolvedValue(['93.184.215.14']);
    const result = await deliverCallback(
      options('https://hooks.example.com/cb', {
        fetch,
        resolveHost,
        onAttempt: (e) => events.push(e),
      }),
    );
    expect(result).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(events[0]).toMatchObject({ outcome: 'retrying', error: 'dns' });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('refuses an authorization value that is not a legal header value', async () => {
    const fetch = fetchAnswering(200);
    const result = await deliverCallback(
      options('https://hooks.example.com/x', { fetch, authorization: 'Bearer x\r\nX-Evil: 1' }),
    );
    expect(result).toEqual({ delivered: false, attempts: 0, reason: 'invalid_authorization' });
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('deliverCallback: configuration errors and secrecy', () => {
  const base = { url: 'https://hooks.example.com/x', body: { job }, webhookId: 'w1' };

  // The package's one option-error style: `<option> is <kind>: expected …`, the kind of value and
  // never a string's content.
  it.each([
    [
      'signingSecret',
      { signingSecret: 'whsec_not*base64!' },
      "is a string: expected 'whsec_' and base64.",
    ],
    ['signingSecret', { signingSecret: '' }, 'is an empty string: expected'],
    // A secret read as a number is not printed either.
    ['signingSecret', { signingSecret: 8675309123 }, "is a number: expected 'whsec_' and base64."],
    ['body', { body: { size: 10n } }, 'is an object: expected a value JSON can hold.'],
    ['webhookId', { webhookId: '' }, 'is an empty string: expected 1-256 printable ASCII'],
    ['webhookId', { webhookId: 'has space' }, 'is a string: expected 1-256 printable ASCII'],
    ['maxAttempts', { maxAttempts: 0 }, 'is the number 0: expected a positive integer.'],
    ['maxAttempts', { maxAttempts: 1.5 }, 'is the number 1.5: expected a positive integer.'],
    [
      'attemptTimeoutMs',
      { attemptTimeoutMs: 0 },
      'is the number 0: expected a number of milliseconds from 1 to 2147483647.',
    ],
    [
      'attemptTimeoutMs',
      { attemptTimeoutMs: 0.5 },
      'is the number 0.5: expected a number of milliseconds from 1 to 2147483647.',
    ],
    [
      'baseDelayMs',
      { baseDelayMs: -1 },
      'is the number -1: expected 0 or a positive number of milliseconds',
    ],
    [
      'maxDelayMs',
      { maxDelayMs: Number.NaN },
      'is NaN: expected 0 or a positive number of milliseconds',
    ],
    [
      'maxDelayMs',
      { maxDelayMs: 2 ** 31 },
      'is the number 2147483648: expected 0 or a positive number of milliseconds up to 2147483647.',
    ],
    [
      'allowHosts',
      { urlPolicy: { allowHosts: ['not a host'] } },
      'is an array: expected host names or IP addresses',
    ],
  ] as const)(
    'throws CallbackConfigError synchronously for a bad %s (%o)',
    (option, extra, says) => {
      let thrown: unknown;
      try {
        void deliverCallback({ ...base, ...extra } as DeliverCallbackOptions);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CallbackConfigError);
      expect((thrown as CallbackConfigError).option).toBe(option);
      expect((thrown as Error).message).toContain(`${option} ${says}`);
      expect((thrown as Error).message).not.toContain('not*base64');
      expect((thrown as Error).message).not.toContain('not a host');
      expect((thrown as Error).message).not.toContain('has space');
    },
  );

  it('never exposes the credential or secret to onAttempt, and survives a throwing observer', async () => {
    const seen: string[] = [];
    const result = await deliverCallback(
      options('https://hooks.example.com/x', {
        fetch: fetchAnswering(500, 200),
        authorization: AUTHORIZATION,
        signingSecret: SECRET,
        onAttempt: (event) => {
          seen.push(JSON.stringify(event));
          throw new Error('observer bug');
        },
      }),
    );
    expect(result).toEqual({ delivered: true, attempts: 2, status: 200 });
    expect(seen).toHaveLength(2);
    for (const line of seen) {
      expect(line).not.toContain('cb-token');
      expect(line).not.toContain(SECRET.slice(6));
    }
  });
});
