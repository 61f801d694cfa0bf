import { get } from 'node:http';
import * as v from 'valibot';

/** A response, its body parsed as JSON when it is JSON. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

/** Sends a request and reads the whole answer. */
export async function http(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (typeof init.body === 'string') body = init.body;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  if (text && response.headers.get('content-type')?.includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** `value` parsed by `schema`; throws with the issues and the value when it does not match. */
export function valid<T>(schema: v.GenericSchema<T>, value: unknown, what: string): T {
  const result = v.safeParse(schema, value);
  if (!result.success) {
    throw new Error(
      `${what} does not match its schema:\n${v.summarize(result.issues)}\n${JSON.stringify(value, null, 2)}`,
    );
  }
  return result.output;
}

/** Resolves once `check` returns a value (polling every `intervalMs`), or rejects after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 15_000, intervalMs = 40 } = {},
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A GET with exactly these headers, `Host` included (`fetch` cannot set `Host`; `node:http` can).
 */
export function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ readonly status: number; readonly body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}
