import { type HttpHandler, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** Base URL every msw-backed test uses. */
export const BASE = 'https://svc.test';
/** Root of the workspace API under `BASE`. */
export const API: string = `${BASE}/api/v1/org`;
/** An obviously fake workspace key. */
export const KEY = 'wk_test_example_0123456789';

/** One msw server per test file; unhandled requests fail the test. */
export function useMsw(): ReturnType<typeof setupServer> {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** A request seen by `recording`, with its parsed body. */
export interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: unknown;
}

/**
 * Wraps a resolver sequence: the n-th request gets `responses[n]` (the last one repeats) and
 * is recorded in `seen`.
 */
export function sequence(
  method: 'get' | 'post' | 'delete',
  path: string,
  responses: (() => Response | Promise<Response>)[],
): { handler: HttpHandler; seen: Seen[] } {
  const seen: Seen[] = [];
  const handler = http[method](`${API}${path}`, async ({ request }) => {
    const text = await request.text();
    seen.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: text === '' ? undefined : JSON.parse(text),
    });
    const next = responses[Math.min(seen.length - 1, responses.length - 1)];
    if (next === undefined) throw new Error('no response configured');
    return next();
  });
  return { handler, seen };
}
