import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BASE, KEY, sequence, useMsw } from '../../test/msw.ts';
import { WorkspaceAbortError } from '../errors/abort-error.ts';
import { WorkspaceApiError } from '../errors/api-error.ts';
import { ConflictError } from '../errors/conflict-error.ts';
import { WorkspaceConnectionError } from '../errors/connection-error.ts';
import { InternalServerError } from '../errors/internal-server-error.ts';
import { NotFoundError } from '../errors/not-found-error.ts';
import { RateLimitError } from '../errors/rate-limit-error.ts';
import { parseRetryAfter, parseRetryAfterMs } from '../errors/retry-after.ts';
import { WorkspaceTimeoutError } from '../errors/timeout-error.ts';
import { createWorkspaceClient } from './create-workspace-client.ts';
import type { RetryEvent, WorkspaceClientOptions } from './options.ts';

const server = useMsw();
const ok = () => HttpResponse.json([]);
const status =
  (code: number, headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json(
      { error: { code: `e${code}`, message: `status ${code}` } },
      { status: code, headers },
    );

const client = (options: Partial<WorkspaceClientOptions> = {}) =>
  createWorkspaceClient({ baseUrl: BASE, apiKey: KEY, ...options });

/** Settles `promise` into a result so fake-timer tests can inspect it without unhandled rejections. */
function settle<T>(promise: Promise<T>) {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  promise.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

/**
 * Yields real macrotask turns (msw and ky do real I/O between fake-timer steps) until
 * `condition` holds. Fake time does not move while waiting.
 */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 2000; turn += 1) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not reached');
}

/** Lets pending real I/O (msw, body streams) finish so every timer it schedules exists. */
async function settleIo(): Promise<void> {
  for (let turn = 0; turn < 40; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves fake time forward by `ms` in 10 ms steps, letting real I/O finish at every step. */
async function elapse(ms: number): Promise<void> {
  await settleIo();
  for (let left = ms; left > 0; left -= 10) {
    await vi.advanceTimersByTimeAsync(Math.min(left, 10));
    await settleIo();
  }
}

let start = 0;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  start = Date.now();
  // Jitter factor 0.75 + 0.5 × 0.5 = 1: delays are exactly 500 ms × 2^(n-1).
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('retry matrix', () => {
  it.each([408, 429, 500, 502, 503, 504])(
    'retries %i after a 500 ms backoff, then succeeds',
    async (code) => {
      const { handler, seen } = sequence('get', '/skills', [status(code), ok]);
      server.use(handler);
      const result = settle(client().skills.list());
      await elapse(499);
      expect(seen).toHaveLength(1);
      await elapse(1);
      await until(() => result.done);
      expect(result.error).toBeUndefined();
      expect(result.value).toEqual([]);
      expect(seen).toHaveLength(2);
    },
  );

  it.each([400, 401, 403, 404, 409, 422])('never retries %i', async (code) => {
    const { handler, seen } = sequence('get', '/skills', [status(code), ok]);
    server.use(handler);
    const error = await client()
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceApiError);
    expect((error as WorkspaceApiError).status).toBe(code);
    expect(seen).toHaveLength(1);
  });

  it('makes 1 + 2 attempts by default, doubling the wait, then throws the last error', async () => {
    const { handler, seen } = sequence('get', '/skills', [status(503)]);
    server.use(handler);
    const result = settle(client().skills.list());
    await elapse(500);
    expect(seen).toHaveLength(2);
    await elapse(999);
    expect(seen).toHaveLength(2);
    await elapse(1);
    await until(() => result.done);
    expect(seen).toHaveLength(3);
    expect(result.error).toBeInstanceOf(InternalServerError);
    expect((result.error as InternalServerError).status).toBe(503);
  });

  it('retries upserts (POST) and deletes, which are idempotent by key', async () => {
    const post = sequence('post', '/skills', [
      status(502),
      () => HttpResponse.json({ name: 'A', slug: 'a' }),
    ]);
    const del = sequence('delete', '/skills/a', [
      status(500),
      () => new HttpResponse(null, { status: 204 }),
    ]);
    server.use(post.handler, del.handler);
    const upsert = settle(client().skills.upsert({ name: 'A', instructions: 'x' }));
    const remove = settle(client().skills.delete('a'));
    await elapse(500);
    await until(() => upsert.done && remove.done);
    expect(upsert.value).toMatchObject({ slug: 'a' });
    expect(remove.error).toBeUndefined();
    expect(post.seen.map((s) => s.body)).toEqual([
      { name: 'A', instructions: 'x' },
      { name: 'A', instructions: 'x' },
    ]);
    expect(del.seen).toHaveLength(2);
  });

  it('never retries a 409 conflict on a write', async () => {
    const { handler, seen } = sequence('post', '/agents', [status(409)]);
    server.use(handler);
    const error = await client()
      .agents.upsert({ name: 'A', slug: 'a' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(seen).toHaveLength(1);
  });

  it('retries network errors, then throws WorkspaceConnectionError', async () => {
    const { handler, seen } = sequence('get', '/debriefs', [() => HttpResponse.error()]);
    server.use(handler);
    const result = settle(client().debriefs.list());
    await elapse(1500);
    await until(() => result.done);
    expect(seen).toHaveLength(3);
    expect(result.error).toBeInstanceOf(WorkspaceConnectionError);
  });

  it('times out each attempt after `timeout`, retries, then throws WorkspaceTimeoutError', async () => {
    const { handler, seen } = sequence('get', '/skills', [() => new Promise<Response>(() => {})]);
    server.use(handler);
    const result = settle(client({ timeout: 1000, retry: 1 }).skills.list());
    await elapse(1000);
    expect(seen).toHaveLength(1);
    await elapse(500);
    expect(seen).toHaveLength(2);
    await elapse(1000);
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceTimeoutError);
    expect(result.error).toBeInstanceOf(WorkspaceConnectionError);
  });

  it('times out a success body that stalls after the headers (WorkspaceTimeoutError)', async () => {
    // 200 headers arrive at once; the body sends one chunk and then never ends.
    const stalled = () =>
      new HttpResponse(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('[{"name":'));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const { handler, seen } = sequence('get', '/skills', [stalled]);
    server.use(handler);
    const result = settle(client({ timeout: 1000 }).skills.list());
    await elapse(999);
    expect(result.done).toBe(false);
    await elapse(1);
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceTimeoutError);
    expect(seen).toHaveLength(1);
  });

  it('bounds a stalled success body by totalTimeout when there is no attempt timeout', async () => {
    const stalled = () =>
      new HttpResponse(new ReadableStream<Uint8Array>({ start() {} }), { status: 200 });
    const { handler } = sequence('get', '/debriefs', [stalled]);
    server.use(handler);
    const result = settle(client({ timeout: false, totalTimeout: 3000 }).debriefs.list());
    await elapse(3000);
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceTimeoutError);
  });

  it('fails fast with the last 503 when the next backoff would outlast totalTimeout', async () => {
    const events: RetryEvent[] = [];
    const { handler, seen } = sequence('get', '/skills', [
      status(503, { 'x-request-id': 'req_last' }),
    ]);
    server.use(handler);
    const result = settle(
      client({
        totalTimeout: 2500,
        retry: { limit: 5, baseDelayMs: 1000, jitter: false },
        onRetry: (event) => events.push(event),
      }).skills.list(),
    );
    // Attempt 1 at 0, wait 1000, attempt 2 at 1000; the next wait (2000) would end at 3000.
    await elapse(1000);
    await until(() => result.done);
    expect(Date.now() - start).toBeLessThan(1100);
    expect(result.error).toBeInstanceOf(InternalServerError);
    expect((result.error as InternalServerError).status).toBe(503);
    expect((result.error as InternalServerError).requestId).toBe('req_last');
    expect(seen).toHaveLength(2);
    // Only the retry that happened was announced.
    expect(events.map((e) => e.attempt)).toEqual([1]);
  });

  it('fails fast with the connection error when the next wait would outlast totalTimeout', async () => {
    const fetch = vi.fn(async (): Promise<Response> => {
      throw new TypeError('fetch failed');
    });
    const onRetry = vi.fn();
    const result = settle(
      client({ fetch, totalTimeout: 400, retry: { limit: 3 }, onRetry }).skills.list(),
    );
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceConnectionError);
    expect(result.error).not.toBeInstanceOf(WorkspaceTimeoutError);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(onRetry).not.toHaveBeenCalled();
  });

  it('caps each backoff delay at maxDelayMs', async () => {
    const events: RetryEvent[] = [];
    const { handler } = sequence('get', '/skills', [status(500)]);
    server.use(handler);
    const result = settle(
      client({
        retry: { limit: 4, baseDelayMs: 1000, maxDelayMs: 2500 },
        onRetry: (event) => events.push(event),
      }).skills.list(),
    );
    await elapse(10_000);
    await until(() => result.done);
    expect(events.map((e) => e.delayMs)).toEqual([1000, 2000, 2500, 2500]);
  });

  it('jitters delays within ±25 % when jitter is on', async () => {
    vi.mocked(Math.random).mockReturnValue(0);
    const events: RetryEvent[] = [];
    const { handler } = sequence('get', '/skills', [status(500), ok]);
    server.use(handler);
    const result = settle(client({ onRetry: (e) => events.push(e) }).skills.list());
    await elapse(375);
    await until(() => result.done);
    expect(events[0]?.delayMs).toBe(375);
  });

  it('calls onRetry before each wait with attempt, delay, error, method and path', async () => {
    const events: RetryEvent[] = [];
    const { handler } = sequence('get', '/skills', [status(503), status(429), ok]);
    server.use(handler);
    const result = settle(client({ onRetry: (e) => events.push(e) }).skills.list());
    await elapse(0);
    expect(events).toHaveLength(1);
    await elapse(1500);
    await until(() => result.done);
    expect(
      events.map(({ attempt, delayMs, method, path }) => ({ attempt, delayMs, method, path })),
    ).toEqual([
      { attempt: 1, delayMs: 500, method: 'GET', path: '/skills' },
      { attempt: 2, delayMs: 1000, method: 'GET', path: '/skills' },
    ]);
    expect(events[0]?.error).toBeInstanceOf(InternalServerError);
    expect(events[1]?.error).toBeInstanceOf(RateLimitError);
  });

  it('honours a per-call retry override', async () => {
    const { handler, seen } = sequence('get', '/skills', [status(503)]);
    server.use(handler);
    await expect(client().skills.list({ retry: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
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

describe('Retry-After', () => {
  it.each(RETRY_AFTER_CASES)('parseRetryAfter(%j) is %j ms', (value, expected) => {
    expect(parseRetryAfter(value, Date.parse('2026-03-01T12:00:00Z'))).toBe(expected);
  });

  it('retries at once for an HTTP-date Retry-After in the past', async () => {
    const when = new Date(Date.now() - 60_000).toUTCString();
    const { handler, seen } = sequence('get', '/skills', [
      status(429, { 'retry-after': when }),
      ok,
    ]);
    server.use(handler);
    const result = settle(client().skills.list());
    // The normal backoff would wait about 500 ms (see below); a past date waits nothing.
    await elapse(1);
    await until(() => result.done);
    expect(seen).toHaveLength(2);
    expect(result.value).toEqual([]);
  });

  it('waits the Retry-After seconds of a 429 instead of the backoff', async () => {
    const { handler, seen } = sequence('get', '/skills', [status(429, { 'retry-after': '3' }), ok]);
    server.use(handler);
    const result = settle(client().skills.list());
    await elapse(2999);
    expect(seen).toHaveLength(1);
    await elapse(1);
    await until(() => result.done);
    expect(result.error).toBeUndefined();
    expect(seen).toHaveLength(2);
  });

  it('prefers retry-after-ms, which is precise', async () => {
    const { handler, seen } = sequence('get', '/skills', [
      status(503, { 'retry-after-ms': '1250', 'retry-after': '9' }),
      ok,
    ]);
    server.use(handler);
    const result = settle(client().skills.list());
    await elapse(1249);
    expect(seen).toHaveLength(1);
    await elapse(1);
    await until(() => result.done);
    expect(seen).toHaveLength(2);
  });

  it('accepts an HTTP-date Retry-After', async () => {
    const when = new Date(Date.now() + 2000).toUTCString();
    const { handler, seen } = sequence('get', '/skills', [
      status(429, { 'retry-after': when }),
      ok,
    ]);
    server.use(handler);
    const result = settle(client().skills.list());
    await elapse(1000);
    expect(seen).toHaveLength(1);
    await elapse(1000);
    await until(() => result.done);
    expect(seen).toHaveLength(2);
  });

  it.each([
    ['text Date.parse reads as a date in 2001', () => 'soon 12'],
    ['garbage', () => 'later, please'],
  ])('uses the normal backoff for a Retry-After that is %s', async (_, value) => {
    const { handler, seen } = sequence('get', '/skills', [
      status(503, { 'retry-after': value() }),
      ok,
    ]);
    server.use(handler);
    const result = settle(client().skills.list());
    await elapse(490);
    expect(seen).toHaveLength(1);
    await elapse(10);
    await until(() => result.done);
    expect(seen).toHaveLength(2);
    expect(result.value).toEqual([]);
  });

  it('accepts the obsolete RFC 850 and asctime HTTP-date forms', () => {
    const at = new Date(Date.now() + 3000);
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const day = days[at.getUTCDay()] as string;
    const [, date, month, year, time] = at.toUTCString().split(' ') as string[];
    const rfc850 = `${day}, ${date}-${month}-${year?.slice(2)} ${time} GMT`;
    const asctime = `${day.slice(0, 3)} ${month} ${date?.replace(/^0/, ' ')} ${time} ${year}`;
    for (const value of [rfc850, asctime]) {
      const delay = parseRetryAfterMs(new Headers({ 'retry-after': value }));
      expect(delay, value).toBeGreaterThan(2000);
      expect(delay, value).toBeLessThanOrEqual(3000);
    }
  });

  it('fails fast with RateLimitError.retryAfterMs when the wait exceeds the 60 s cap', async () => {
    const { handler, seen } = sequence('get', '/skills', [
      status(429, { 'retry-after': '61' }),
      ok,
    ]);
    server.use(handler);
    const error = await client()
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(61_000);
    expect(seen).toHaveLength(1);
  });

  it('honours a custom maxRetryAfterMs', async () => {
    const { handler, seen } = sequence('get', '/skills', [
      status(429, { 'retry-after-ms': '1500' }),
      ok,
    ]);
    server.use(handler);
    const error = await client({ retry: { maxRetryAfterMs: 1000 } })
      .skills.list()
      .catch((e: unknown) => e);
    expect((error as RateLimitError).retryAfterMs).toBe(1500);
    expect(seen).toHaveLength(1);
  });

  it('fails fast when the wait would outlast totalTimeout', async () => {
    const { handler, seen } = sequence('get', '/skills', [
      status(429, { 'retry-after': '30' }),
      ok,
    ]);
    server.use(handler);
    const error = await client({ totalTimeout: 10_000 })
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(1);
  });
});

describe('abort', () => {
  it('stops at once when aborted during the backoff wait', async () => {
    const { handler, seen } = sequence('get', '/skills', [status(503), ok]);
    server.use(handler);
    const controller = new AbortController();
    const result = settle(client().skills.list({ signal: controller.signal }));
    await elapse(100);
    expect(seen).toHaveLength(1);
    controller.abort();
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceAbortError);
    await elapse(5000);
    expect(seen).toHaveLength(1);
  });

  it('aborts an in-flight request and never retries it', async () => {
    const { handler, seen } = sequence('get', '/skills', [() => new Promise<Response>(() => {})]);
    server.use(handler);
    const controller = new AbortController();
    const result = settle(client().skills.list({ signal: controller.signal }));
    await elapse(10);
    controller.abort(new Error('user went away'));
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceAbortError);
    expect((result.error as Error).cause).toEqual(new Error('user went away'));
    expect(seen).toHaveLength(1);
  });

  it('stops at once when aborted while an async apiKey is still fetching the token', async () => {
    const { handler, seen } = sequence('get', '/skills', [ok]);
    server.use(handler);
    const controller = new AbortController();
    // A token route that never answers: before, the call waited for it until totalTimeout.
    const apiKey = () => new Promise<string>(() => {});
    const result = settle(client({ apiKey }).skills.list({ signal: controller.signal }));
    await elapse(100);
    controller.abort(new Error('user went away'));
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(WorkspaceAbortError);
    expect((result.error as Error).cause).toEqual(new Error('user went away'));
    expect(Date.now() - start).toBe(100);
    expect(seen).toHaveLength(0);
  });

  it('rejects without sending when the signal is already aborted', async () => {
    const { handler, seen } = sequence('get', '/skills', [ok]);
    server.use(handler);
    await expect(client().skills.list({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      WorkspaceAbortError,
    );
    expect(seen).toHaveLength(0);
  });
});

describe('idempotent deletes and token refresh', () => {
  const gone = () =>
    HttpResponse.json({ error: { code: 'not_found', message: 'gone' } }, { status: 404 });

  it('treats a 404 on a retried delete as success when an attempt got no response', async () => {
    const { handler, seen } = sequence('delete', '/agents/a', [() => HttpResponse.error(), gone]);
    server.use(handler);
    const result = settle(client().agents.delete('a'));
    await elapse(500);
    await until(() => result.done);
    expect(result.error).toBeUndefined();
    expect(seen).toHaveLength(2);
  });

  it('treats a 404 after a timed-out delete attempt (then a 503) as success', async () => {
    const { handler, seen } = sequence('delete', '/skills/a', [
      () => new Promise<Response>(() => {}),
      status(503),
      gone,
    ]);
    server.use(handler);
    const result = settle(client({ timeout: 1000 }).skills.delete('a'));
    await elapse(1000 + 500 + 1000);
    await until(() => result.done);
    expect(result.error).toBeUndefined();
    expect(seen).toHaveLength(3);
  });

  it('rejects a 404 on a retried delete with NotFoundError when every attempt was answered', async () => {
    const { handler, seen } = sequence('delete', '/agents/a', [status(503), gone]);
    server.use(handler);
    const result = settle(client().agents.delete('a'));
    await elapse(500);
    await until(() => result.done);
    expect(result.error).toBeInstanceOf(NotFoundError);
    expect(seen).toHaveLength(2);
  });

  it('asks an async apiKey for a fresh token before every attempt', async () => {
    let n = 0;
    const { handler, seen } = sequence('get', '/skills', [status(503), ok]);
    server.use(handler);
    const result = settle(client({ apiKey: async () => `wk_test_token_${++n}` }).skills.list());
    await elapse(500);
    await until(() => result.done);
    expect(seen.map((s) => s.headers.get('authorization'))).toEqual([
      'Bearer wk_test_token_1',
      'Bearer wk_test_token_2',
    ]);
  });
});
