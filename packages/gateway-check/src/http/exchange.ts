import { GatewayClientError, isGatewayClientError } from '../errors/gateway-client-error.ts';
import { redact } from './redact.ts';

/**
 * A `fetch`-compatible function (the global one, or a gateway's own `fetch` handler).
 *
 * @example
 * const inProcess: FetchLike = (input, init) => gateway.fetch(new Request(input, init));
 */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** One request to a gateway. */
export interface ExchangeRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as the body as it is (a string) or as JSON. */
  readonly body?: unknown;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** The token sent: replaced by `[redacted]` wherever the answer (body, headers) shows it. */
  readonly secret?: string | undefined;
}

/**
 * A gateway's answer, read whole (bounded) and parsed as JSON when it is JSON; the request's
 * `secret` is `[redacted]` in all of it.
 */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body, or `undefined` when the body is not JSON. */
  readonly json: unknown;
}

/** The most of an answer body that is read: a gateway answer is small JSON. */
export const MAX_ANSWER_BYTES: number = 4 * 1024 * 1024;

const failure = (kind: 'network' | 'timeout' | 'aborted' | 'too-large', message: string) =>
  new GatewayClientError({ kind, message });

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw failure('too-large', `the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sends one request and reads the whole answer within `timeoutMs` (connect, headers and body).
 * Redirects are not followed: a 3xx is returned as the answer. Throws a {@link GatewayClientError} when there is no answer; any HTTP status is an answer.
 *
 * @example
 * const answer = await exchange(fetch, { method: 'GET', url: `${base}/v1/manifest`, timeoutMs: 10_000 });
 */
export async function exchange(fetchFn: FetchLike, request: ExchangeRequest): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (typeof request.body === 'string') body = request.body;
  else if (request.body !== undefined) body = JSON.stringify(request.body);
  try {
    const response = await fetchFn(request.url, {
      method: request.method,
      headers,
      signal,
      // A redirect is an answer to report, never followed: following it would send the token
      // (and the invoke body) wherever the gateway points.
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
    });
    const text = await readBounded(response);
    const { secret } = request;
    if (!secret) {
      return { status: response.status, headers: response.headers, text, json: parseJson(text) };
    }
    const shown = new Headers();
    for (const [name, value] of response.headers) shown.append(name, redact(value, secret));
    // Parsed before it is redacted: the token may appear escaped in the JSON text.
    const json = redact(parseJson(text), secret);
    return { status: response.status, headers: shown, text: redact(text, secret), json };
  } catch (error) {
    if (isGatewayClientError(error)) throw error;
    if (request.signal?.aborted) throw failure('aborted', 'the request was aborted');
    if (timeout.aborted) {
      throw failure('timeout', `no answer within ${request.timeoutMs} ms`);
    }
    const cause =
      error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
    const why =
      typeof cause?.code === 'string'
        ? cause.code
        : error instanceof Error
          ? error.message
          : String(error);
    throw failure('network', `the gateway could not be reached (${why})`);
  }
}

/** `base` without trailing slashes, plus `path`. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, '')}${path}`;

/**
 * Whether `url` is an absolute URL carrying a user name or password (`http://u:secret@host`):
 * refused as a gateway address, since it would show in every message naming the URL.
 */
export function hasCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username !== '' || password !== '';
}

/** Whether `url` is on the origin of `base` (both absolute). */
export function sameOrigin(url: string, base: string): boolean {
  return URL.canParse(url) && URL.canParse(base) && new URL(url).origin === new URL(base).origin;
}
