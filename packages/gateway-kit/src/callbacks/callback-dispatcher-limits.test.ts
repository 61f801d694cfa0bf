import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallbackConfigError } from './callback-config-error.ts';
import {
  type CallbackDeliveryFailure,
  CallbackDispatcher,
  type CallbackDispatcherOptions,
} from './callback-dispatcher.ts';
import type { CallbackDeliveryResult } from './deliver-callback.ts';
import { CALLBACK_LIMIT_DEFAULTS } from './delivery-limiter.ts';

const DEV = { allowInsecureLoopback: true } as const;
const job = { jobId: 'job_1', status: 'completed' };

/** A TCP server on 127.0.0.1 that accepts connections and never answers. */
async function silentServer() {
  const sockets = new Set<Socket>();
  let peak = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    peak = Math.max(peak, sockets.size);
    // Reads and discards what arrives, so that the client closing the connection is seen.
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/cb?token=query-secret`,
    origin: `http://127.0.0.1:${port}`,
    get open() {
      return sockets.size;
    },
    get peak() {
      return peak;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server on 127.0.0.1 that answers 204 to everything. */
async function answeringServer() {
  let received = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/cb`,
    get received() {
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function dispatcher(options: CallbackDispatcherOptions) {
  const created = new CallbackDispatcher({ urlPolicy: DEV, ...options });
  cleanups.push(() => created.close());
  return created;
}

describe('CallbackDispatcher limits: receivers that accept and never answer', () => {
  it('holds at most maxConcurrentAttempts sockets for 1 100 callbacks, overflows exactly the excess, and settles on close()', async () => {
    const servers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => silentServer()));
    cleanups.push(() => Promise.all(servers.map((s) => s.close())).then(() => undefined));
    const failures: CallbackDeliveryFailure[] = [];
    const callbacks = new CallbackDispatcher({
      urlPolicy: DEV,
      // Long enough that no attempt ends by itself during the test.
      attemptTimeoutMs: 120_000,
      onDeliveryFailed: (failure) => failures.push(failure),
    });
    const { maxConcurrentAttempts, maxConcurrentPerDestination, maxPendingDeliveries } =
      CALLBACK_LIMIT_DEFAULTS;

    const results: Array<Promise<CallbackDeliveryResult>> = [];
    for (let i = 0; i < 1_100; i++) {
      results.push(
        callbacks.dispatch({
          url: servers[i % servers.length]!.url,
          body: { job },
          webhookId: `job_${i}_completed`,
          authorization: 'Bearer very-secret',
        }),
      );
    }

    // The excess is refused at once, and reported, not dropped.
    await expect.poll(() => failures.length).toBe(1_100 - maxPendingDeliveries);
    expect(failures.every((f) => f.result.reason === 'overflow')).toBe(true);
    expect(failures[0]).toEqual({
      webhookId: `job_${maxPendingDeliveries}_completed`,
      target: servers[maxPendingDeliveries % servers.length]!.origin,
      result: { delivered: false, attempts: 0, reason: 'overflow' },
    });
    expect(JSON.stringify(failures)).not.toMatch(/very-secret|query-secret/);

    // The sockets the receivers see fill up to the global cap and stay there.
    const openSockets = () => servers.reduce((sum, s) => sum + s.open, 0);
    await expect.poll(openSockets, { timeout: 10_000 }).toBe(maxConcurrentAttempts);
    expect(callbacks.activeAttempts).toBe(maxConcurrentAttempts);
    expect(callbacks.inFlight).toBe(maxPendingDeliveries);
    for (const server of servers) {
      expect(server.peak).toBeLessThanOrEqual(maxConcurrentPerDestination);
    }
    expect(servers.reduce((sum, s) => sum + s.peak, 0)).toBeLessThanOrEqual(maxConcurrentAttempts);

    await callbacks.close();
    const settled = await Promise.all(results);
    expect(settled.filter((r) => r.delivered)).toHaveLength(0);
    expect(settled.filter((r) => !r.delivered && r.reason === 'aborted')).toHaveLength(
      maxPendingDeliveries,
    );
    // Every callback that was not delivered is reported exactly once.
    expect(failures).toHaveLength(1_100);
    expect(new Set(failures.map((f) => f.webhookId)).size).toBe(1_100);
    expect(callbacks.inFlight).toBe(0);
    expect(callbacks.activeAttempts).toBe(0);
    // Node 22's fetch may keep a spare connection per origin until its keep-alive timeout (4 s).
    await expect.poll(openSockets, { timeout: 15_000 }).toBe(0);
  }, 30_000);

  it('a destination saturated by a silent receiver does not hold up another one', async () => {
    const silent = await silentServer();
    const answering = await answeringServer();
    cleanups.push(silent.close, answering.close);
    const callbacks = dispatcher({
      attemptTimeoutMs: 120_000,
      maxConcurrentAttempts: 8,
      maxConcurrentPerDestination: 4,
    });
    for (let i = 0; i < 40; i++) {
      void callbacks.dispatch({ url: silent.url, body: { job }, webhookId: `s_${i}` });
    }
    await expect.poll(() => silent.open).toBe(4);

    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        callbacks.dispatch({ url: answering.url, body: { job }, webhookId: `a_${i}` }),
      ),
    );
    expect(results.every((r) => r.delivered)).toBe(true);
    expect(answering.received).toBe(6);
    expect(silent.peak).toBe(4);
  });

  it('overflows on pending bytes as well, without touching deliveries already admitted', async () => {
    const silent = await silentServer();
    cleanups.push(silent.close);
    const failures: CallbackDeliveryFailure[] = [];
    const callbacks = dispatcher({
      attemptTimeoutMs: 120_000,
      maxPendingBytes: 10_000,
      onDeliveryFailed: (failure) => failures.push(failure),
    });
    // Each body is a little over 3 000 bytes in UTF-8 ('é' is 2 bytes): three fit, the fourth does not.
    const body = { job, note: 'é'.repeat(1_500) };
    for (let i = 0; i < 5; i++) {
      void callbacks.dispatch({ url: silent.url, body, webhookId: `big_${i}` });
    }
    await expect.poll(() => failures.length).toBe(2);
    expect(failures.map((f) => [f.webhookId, f.result.reason])).toEqual([
      ['big_3', 'overflow'],
      ['big_4', 'overflow'],
    ]);
    await expect.poll(() => silent.open).toBe(3);
    // A small body still fits in what is left.
    void callbacks.dispatch({ url: silent.url, body: { job }, webhookId: 'small' });
    await expect.poll(() => silent.open).toBe(4);
    expect(failures).toHaveLength(2);
  });

  it('frees pending capacity when deliveries end', async () => {
    const answering = await answeringServer();
    cleanups.push(answering.close);
    const callbacks = dispatcher({ maxPendingDeliveries: 2 });
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        [0, 1].map((i) =>
          callbacks.dispatch({ url: answering.url, body: { job }, webhookId: `r${round}_${i}` }),
        ),
      );
      expect(results.map((r) => r.delivered)).toEqual([true, true]);
    }
    expect(answering.received).toBe(6);
  });
});

describe('CallbackDispatcher limits: circuit breaker', () => {
  const A = 'https://a.example.com/cb';
  const B = 'https://b.example.com/cb';

  /**
   * A fetch recording requests per origin; each origin answers with its current status, or fails
   * like an unreachable receiver (a network error) when it is 0.
   */
  function fetchByOrigin(statuses: Record<string, number>) {
    const calls: string[] = [];
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      const origin = new URL(String(input)).origin;
      calls.push(origin);
      const status = statuses[origin] ?? 200;
      if (status === 0) throw new TypeError('fetch failed');
      return new Response(null, { status });
    });
    return { fetch, calls, count: (origin: string) => calls.filter((c) => c === origin).length };
  }

  it('opens after N failures, sends nothing during the cooldown, then one probe; another destination is unaffected', async () => {
    vi.useFakeTimers();
    const statuses: Record<string, number> = { 'https://a.example.com': 0 };
    const { fetch, count } = fetchByOrigin(statuses);
    const callbacks = dispatcher({
      fetch,
      circuitFailureThreshold: 3,
      circuitCooldownMs: 30_000,
      maxAttempts: 20,
      baseDelayMs: 10,
      maxDelayMs: 120_000,
      random: () => 0,
    });
    const first = callbacks.dispatch({ url: A, body: { job }, webhookId: 'a1' });
    await vi.advanceTimersByTimeAsync(100);
    expect(count('https://a.example.com')).toBe(3);

    // Open: more deliveries to A wait without sending; B goes through at once.
    const second = callbacks.dispatch({ url: A, body: { job }, webhookId: 'a2' });
    expect(await callbacks.dispatch({ url: B, body: { job }, webhookId: 'b1' })).toEqual({
      delivered: true,
      attempts: 1,
      status: 200,
    });
    await vi.advanceTimersByTimeAsync(29_000);
    expect(count('https://a.example.com')).toBe(3);

    // Half-open: exactly one probe; it fails, so the circuit opens again.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(count('https://a.example.com')).toBe(4);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(count('https://a.example.com')).toBe(4);

    // The receiver recovers: the next probe succeeds and closes the circuit; both deliver.
    statuses['https://a.example.com'] = 200;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await first).toMatchObject({ delivered: true });
    expect(await second).toEqual({ delivered: true, attempts: 1, status: 200 });
    expect(count('https://a.example.com')).toBe(6);
    expect(await first).toEqual({ delivered: true, attempts: 5, status: 200 });
  });

  it('a delivery waiting on an open circuit ends as circuit_open after maxDelayMs of waiting, and on close() as aborted', async () => {
    vi.useFakeTimers();
    const { fetch, count } = fetchByOrigin({ 'https://a.example.com': 0 });
    const failures: CallbackDeliveryFailure[] = [];
    const callbacks = dispatcher({
      fetch,
      circuitFailureThreshold: 1,
      circuitCooldownMs: 10_000,
      maxAttempts: 100,
      baseDelayMs: 0,
      maxDelayMs: 25_000,
      onDeliveryFailed: (failure) => failures.push(failure),
    });
    const result = callbacks.dispatch({ url: A, body: { job }, webhookId: 'a1' });
    // Attempt 1 fails (opens), waits 10 s, probe 2 fails, waits 10 s, probe 3 fails: another
    // 10 s would make 30 s > 25 s, so it ends there, about 20 s after it started.
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({
      delivered: false,
      attempts: 3,
      reason: 'circuit_open',
    });
    expect(count('https://a.example.com')).toBe(3);
    expect(failures.map((f) => f.result.reason)).toEqual(['circuit_open']);

    const waiting = callbacks.dispatch({ url: A, body: { job }, webhookId: 'a2' });
    await vi.advanceTimersByTimeAsync(1_000);
    await callbacks.close();
    expect(await waiting).toEqual({ delivered: false, attempts: 0, reason: 'aborted' });
    expect(count('https://a.example.com')).toBe(3);
  });

  it('a principal whose receiver path is unreachable does not open the circuit of another principal on the same origin', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input));
      calls.push(url.pathname);
      if (url.pathname === '/bad') throw new TypeError('fetch failed');
      return new Response(null, { status: 204 });
    });
    const callbacks = dispatcher({
      fetch,
      circuitFailureThreshold: 2,
      circuitCooldownMs: 30_000,
      maxAttempts: 3,
      baseDelayMs: 10,
    });
    const bad = Array.from({ length: 10 }, (_, i) =>
      callbacks.dispatch({
        url: 'https://a.example.com/bad',
        body: { job },
        webhookId: `a${i}`,
        principal: 'a',
      }),
    );
    await vi.advanceTimersByTimeAsync(100);
    const good = Array.from({ length: 50 }, (_, i) =>
      callbacks.dispatch({
        url: 'https://a.example.com/good',
        body: { job },
        webhookId: `b${i}`,
        principal: 'b',
      }),
    );
    await vi.advanceTimersByTimeAsync(100);
    const results = await Promise.all(good);
    expect(results.every((r) => r.delivered && r.attempts === 1)).toBe(true);
    // a's circuit is open: after its first failures, nothing more went to /bad meanwhile.
    expect(calls.filter((path) => path === '/bad').length).toBeLessThanOrEqual(10);
    await callbacks.close();
    await Promise.all(bad);
  });

  it('a receiver answering 5xx keeps its circuit closed: each callback is retried on its own schedule', async () => {
    vi.useFakeTimers();
    const seen = new Map<string, number>();
    // Fails the first two attempts of every callback, accepts the third.
    const fetch = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
      const id = new Headers(init?.headers).get('webhook-id') ?? '';
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      return new Response(null, { status: n <= 2 ? 500 : 204 });
    });
    const callbacks = dispatcher({ fetch, maxPendingPerPrincipal: 1_000, baseDelayMs: 100 });
    const pending = Array.from({ length: 200 }, (_, i) =>
      callbacks.dispatch({ url: A, body: { job }, webhookId: `f${i}`, principal: 'p' }),
    );
    // Backoff ceilings before retries 1 and 2: 100 and 200 ms.
    await vi.advanceTimersByTimeAsync(1_000);
    const results = await Promise.all(pending);
    expect(results.every((r) => r.delivered && r.attempts === 3)).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(600);
  });

  it('counts only failures that say the receiver is unwell: 4xx answers keep it closed', async () => {
    const { fetch, count } = fetchByOrigin({ 'https://a.example.com': 404 });
    const callbacks = dispatcher({ fetch, circuitFailureThreshold: 2 });
    for (let i = 0; i < 5; i++) {
      expect(await callbacks.dispatch({ url: A, body: { job }, webhookId: `a${i}` })).toMatchObject(
        { reason: 'client_error' },
      );
    }
    expect(count('https://a.example.com')).toBe(5);
  });
});

describe('CallbackDispatcher limits: settings', () => {
  it.each([
    ['maxConcurrentAttempts', 0],
    ['maxConcurrentPerDestination', 1.5],
    ['maxPendingDeliveries', -1],
    ['maxPendingBytes', Number.NaN],
    ['circuitFailureThreshold', 0],
    ['circuitCooldownMs', -5],
    ['circuitMaxDestinations', Number.POSITIVE_INFINITY],
  ] as const)('refuses %s = %s', (option, value) => {
    expect(() => new CallbackDispatcher({ [option]: value })).toThrow(
      expect.objectContaining({ name: 'CallbackConfigError', option }),
    );
    expect(() => new CallbackDispatcher({ [option]: value })).toThrow(CallbackConfigError);
  });

  it('applies the defaults docs/callbacks.md publishes (its "Limits" table)', () => {
    // The behaviour under the defaults is tested above through CALLBACK_LIMIT_DEFAULTS; this
    // keeps the numbers an operator reads equal to the ones applied.
    const docs = readFileSync(new URL('../../../../docs/callbacks.md', import.meta.url), 'utf8');
    const documented: Record<string, number> = {};
    for (const [, name, value, unit] of docs.matchAll(
      /^\| `(\w+)` \| ([\d ]+?)(?: (ms|MiB))? \|/gm,
    )) {
      const number = Number(value!.replaceAll(' ', ''));
      documented[name!] = unit === 'MiB' ? number * 1024 * 1024 : number;
    }
    for (const [name, value] of Object.entries(CALLBACK_LIMIT_DEFAULTS))
      expect(documented[name], name).toBe(value);
  });
});
