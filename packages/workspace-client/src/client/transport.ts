import ky, { isHTTPError, isKyError, isNetworkError, isTimeoutError } from 'ky';
import { WorkspaceAbortError } from '../errors/abort-error.ts';
import { WorkspaceConnectionError } from '../errors/connection-error.ts';
import { apiErrorFromResponse } from '../errors/from-response.ts';
import { REDACTED, redact } from '../errors/redact.ts';
import { WorkspaceResponseTooLargeError } from '../errors/response-too-large-error.ts';
import { parseRetryAfterMs } from '../errors/retry-after.ts';
import { WorkspaceTimeoutError } from '../errors/timeout-error.ts';
import { WorkspaceValidationError } from '../errors/validation-error.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { backoffDelay } from './backoff.ts';
import { isBrowserLike } from './environment.ts';
import { limitBody } from './limit-body.ts';
import type {
  RequestOptions,
  ResponseInfo,
  RetryPolicy,
  WorkspaceClientOptions,
} from './options.ts';
import {
  checkFunction,
  checkHeaders,
  checkKeys,
  checkTimeout,
  MAX_TIMEOUT_MS,
  refuse,
} from './validate-options.ts';

/** HTTP methods the workspace API uses. */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** The parsed JSON body of a call (`undefined` when empty) and the response it came from. */
export interface TransportResult {
  readonly body: unknown;
  readonly response: ResponseInfo;
}

/** Sends one logical call (with retries) and returns the parsed JSON body and response facts. */
export interface Transport {
  readonly validateResponses: boolean;
  request(
    method: HttpMethod,
    path: string,
    body: unknown,
    options: RequestOptions | undefined,
  ): Promise<TransportResult>;
}

/**
 * Statuses retried by default; 409 and other 4xx never are. Frozen: the retry rules are
 * not changed by mutating it.
 *
 * @example
 * ```ts
 * RETRY_STATUS_CODES.includes(503); // true
 * ```
 */
export const RETRY_STATUS_CODES: readonly number[] = /* @__PURE__ */ Object.freeze([
  408, 429, 500, 502, 503, 504,
]);

const DEFAULTS = {
  limit: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  jitter: true,
  timeout: 30_000,
  totalTimeout: 120_000,
  maxResponseBytes: 16_777_216, // 16 MiB
} as const;

type ResolvedPolicy = Required<{ [K in keyof RetryPolicy]: NonNullable<RetryPolicy[K]> }>;

// The option names each options object accepts; anything else is refused (`checkKeys`). Typed
// against the interfaces, so a new option cannot be left out of its list. The retry policy's
// are the keys of its resolved form (`ResolvedPolicy` requires each).
const CLIENT_KEYS = /* @__PURE__ */ Object.keys({
  baseUrl: 1,
  apiKey: 1,
  fetch: 1,
  timeout: 1,
  totalTimeout: 1,
  retry: 1,
  onRetry: 1,
  onRequest: 1,
  onResponse: 1,
  maxResponseBytes: 1,
  validateResponses: 1,
  headers: 1,
  dangerouslyAllowBrowser: 1,
} satisfies { readonly [K in keyof WorkspaceClientOptions]-?: 1 });
const REQUEST_KEYS = /* @__PURE__ */ Object.keys({
  signal: 1,
  timeout: 1,
  totalTimeout: 1,
  retry: 1,
  headers: 1,
} satisfies { readonly [K in keyof RequestOptions]-?: 1 });

function resolvePolicy(
  factory: string,
  ...layers: (RetryPolicy | number | undefined)[]
): ResolvedPolicy {
  const policy: ResolvedPolicy = {
    limit: DEFAULTS.limit,
    baseDelayMs: DEFAULTS.baseDelayMs,
    maxDelayMs: DEFAULTS.maxDelayMs,
    maxRetryAfterMs: DEFAULTS.maxRetryAfterMs,
    jitter: DEFAULTS.jitter,
  };
  const known = Object.keys(policy);
  for (const layer of layers) {
    if (layer === undefined) continue;
    const entries = typeof layer === 'number' ? { limit: layer } : layer;
    // A string (`retry: process.env.RETRIES`) would otherwise be read as no setting at all.
    if (typeof entries !== 'object' || !entries || Array.isArray(entries))
      refuse('retry', layer, 'expected a number or an object.', factory);
    checkKeys(entries, known, factory, 'retry: ');
    for (const [key, value] of Object.entries(entries)) {
      if (value !== undefined) (policy as Record<string, unknown>)[key] = value;
    }
  }
  // The number of retries, not a cap on what callers make us keep: 0 (never retry) is meaningful.
  // A safe integer: `2 ** 53` or `1e300` retried without end under `totalTimeout: false`.
  if (!Number.isSafeInteger(policy.limit) || policy.limit < 0) {
    refuse('retry.limit', policy.limit, 'expected an integer >= 0.', factory);
  }
  for (const key of ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    // Finite: a string passed `'500' >= 0`, and `''` was a delay of 0.
    const ms = policy[key];
    if (!(Number.isFinite(ms) && ms >= 0 && ms <= MAX_TIMEOUT_MS)) {
      refuse(`retry.${key}`, ms, `expected a number of ms from 0 to ${MAX_TIMEOUT_MS}.`, factory);
    }
  }
  return policy;
}

/**
 * What a bearer token may contain here: printable ASCII without spaces. Anything else (a
 * trailing newline read from a file, a pasted space) would be refused by `Headers` with an
 * error quoting the key, so it is refused earlier with a message that never shows it.
 */
export const KEY_PATTERN: RegExp = /^[\x21-\x7e]+$/;

const INVALID_KEY = 'expected printable ASCII without spaces or line breaks.';
/** What option errors of a request's own options are named after (else the factory's name). */
const CALL = 'request options';

/** Headers the client owns: a user `headers` entry never replaces them. */
const RESERVED_HEADERS = ['accept', 'authorization', 'content-type'];

function userHeaders(...layers: (Record<string, string> | undefined)[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      const lower = name.toLowerCase();
      if (!RESERVED_HEADERS.includes(lower)) merged[lower] = value;
    }
  }
  return merged;
}

/** Lower-cased header names to values. */
const headerRecord = (headers: Headers): Record<string, string> => Object.fromEntries(headers);

/** The request id of a response: `x-request-id`, else `request-id`. */
const requestIdOf = (headers: Headers): string | undefined =>
  headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;

/**
 * The API root (`{origin}{path}/api/v1/org`) of a `baseUrl`, or `undefined` when it is not an
 * absolute http(s) URL without credentials (the CLI names its own flag for that).
 */
export function apiRoot(baseUrl: unknown): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(String(baseUrl));
  } catch {}
  if (
    typeof baseUrl !== 'string' ||
    !/^https?:$/.test(url?.protocol ?? '') ||
    url?.username !== '' ||
    url.password !== ''
  ) {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  const prefixed = path.endsWith('/api/v1/org') ? path : `${path}/api/v1/org`;
  return `${url.origin}${prefixed}`;
}

/**
 * Validates the client options and returns the transport every resource uses. Throws
 * `WorkspaceConfigError` synchronously for unusable options, its message starting with
 * `factory` (the public function the caller called).
 */
export function createTransport(options: WorkspaceClientOptions, factory: string): Transport {
  if (options === null || typeof options !== 'object') {
    refuse('options', options, 'expected { baseUrl, apiKey }.', factory);
  }
  checkKeys(options, CLIENT_KEYS, factory);
  const root =
    apiRoot(options.baseUrl) ??
    refuse(
      'baseUrl',
      options.baseUrl,
      'expected an absolute http(s) URL without credentials.',
      factory,
      true,
    );
  const { apiKey } = options;
  if (typeof apiKey === 'string' ? apiKey.trim() === '' : typeof apiKey !== 'function') {
    refuse('apiKey', apiKey, 'expected a key or a function returning a token.', factory, true);
  }
  if (typeof apiKey === 'string' && !KEY_PATTERN.test(apiKey)) {
    refuse('apiKey', apiKey, INVALID_KEY, factory);
  }
  if (typeof apiKey === 'string' && isBrowserLike() && options.dangerouslyAllowBrowser !== true) {
    refuse(
      'apiKey',
      apiKey,
      'a secret, refused in a browser: pass a function returning a short-lived token (or dangerouslyAllowBrowser: true).',
      factory,
    );
  }
  checkFunction('fetch', options.fetch, factory);
  checkFunction('onRetry', options.onRetry, factory);
  checkFunction('onRequest', options.onRequest, factory);
  checkFunction('onResponse', options.onResponse, factory);
  checkHeaders('headers', options.headers, factory);
  checkTimeout('timeout', options.timeout, factory);
  checkTimeout('totalTimeout', options.totalTimeout, factory);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
    refuse('maxResponseBytes', maxResponseBytes, 'expected a positive integer (bytes).', factory);
  }
  // Validate the client-level policy now so mistakes surface at construction.
  resolvePolicy(factory, options.retry);

  const resolveKey = async (): Promise<string> => {
    if (typeof apiKey === 'string') return apiKey;
    let key: unknown;
    try {
      key = await apiKey();
    } catch (error) {
      throw new WorkspaceError('The apiKey function failed', { cause: error });
    }
    if (typeof key !== 'string' || !KEY_PATTERN.test(key))
      refuse('its result', key, INVALID_KEY, 'apiKey()', true);
    return key;
  };

  return {
    validateResponses: options.validateResponses !== false,
    async request(method, path, body, call) {
      const what = `${method} ${path}`;
      if (call != null) checkKeys(call, REQUEST_KEYS, CALL);
      checkTimeout('timeout', call?.timeout, CALL);
      checkTimeout('totalTimeout', call?.totalTimeout, CALL);
      checkHeaders('headers', call?.headers, CALL);
      const policy = resolvePolicy(CALL, options.retry, call?.retry);
      const signal = call?.signal;
      const totalTimeout = call?.totalTimeout ?? options.totalTimeout ?? DEFAULTS.totalTimeout;
      const startedAt = Date.now();
      // Per-call state shared by ky's retry callbacks below.
      let key: string | undefined = typeof apiKey === 'string' ? apiKey : undefined;
      let plannedDelay = 0;
      let lastError: unknown;
      let sentAt = startedAt;

      const toError = (error: unknown): WorkspaceError =>
        mapError(error, { key, signal, what, method, path, root });

      const headers: Record<string, string> = {
        ...userHeaders(options.headers, call?.headers),
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
      // Sets Authorization from a freshly resolved key. Never lets the runtime's own error
      // escape: it would quote the header value. Then tells `onRequest`, key redacted.
      const send = async (request: Request, retryCount: number): Promise<void> => {
        // The caller's signal also ends a wait for the token (a token route that hangs); the
        // abort event it rejects with becomes a WorkspaceAbortError in mapError.
        key = await new Promise<string>((resolve, reject) => {
          signal?.addEventListener('abort', reject);
          resolveKey()
            .then(resolve, reject)
            .finally(() => signal?.removeEventListener('abort', reject));
        });
        try {
          request.headers.set('authorization', `Bearer ${key}`);
        } catch {
          refuse('apiKey', key, INVALID_KEY, factory);
        }
        sentAt = Date.now();
        if (options.onRequest !== undefined) {
          const seen = redact(headerRecord(request.headers), key);
          seen.authorization = `Bearer ${REDACTED}`;
          observe(options.onRequest, { method, url: request.url, headers: seen, retryCount });
        }
      };
      // True once an attempt ended without any response (network error, attempt timeout):
      // that attempt may have reached the service.
      let lostAttempt = false;

      try {
        const pending = ky(`${root}${path}`, {
          method,
          ...(body === undefined ? {} : { json: body }),
          headers,
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
          ...(signal === undefined ? {} : { signal }),
          timeout: call?.timeout ?? options.timeout ?? DEFAULTS.timeout,
          totalTimeout,
          throwHttpErrors: true,
          retry: {
            limit: policy.limit,
            // Every workspace write is an idempotent upsert or delete by key.
            methods: ['get', 'post', 'delete'],
            statusCodes: [...RETRY_STATUS_CODES],
            // Server timing is read in shouldRetry so `retry-after-ms` and the cap apply too.
            afterStatusCodes: [],
            retryOnTimeout: true,
            shouldRetry: ({ error, retryCount }) => {
              lastError = error;
              if (signal?.aborted) return false;
              let after: number | undefined;
              if (isHTTPError(error)) {
                if (!RETRY_STATUS_CODES.includes(error.response.status)) return false;
                after = parseRetryAfterMs(error.response.headers);
                // Fail fast rather than wait longer than allowed.
                if (after !== undefined && after > policy.maxRetryAfterMs) return false;
              } else if (
                // ky does not recognise every runtime's network failure (e.g. Bun's), but
                // fetch always reports one as a TypeError.
                !(isTimeoutError(error) || isNetworkError(error) || error instanceof TypeError)
              ) {
                return false;
              }
              plannedDelay = after ?? backoffDelay(retryCount, policy);
              // A wait that would outlast the call's budget ends it now, with this error
              // (not a timeout after sleeping until the deadline).
              return !(
                typeof totalTimeout === 'number' &&
                Date.now() - startedAt + plannedDelay >= totalTimeout
              );
            },
            delay: (attempt) => {
              observe(options.onRetry, {
                attempt,
                delayMs: plannedDelay,
                error: toError(lastError),
                method,
                path,
              });
              return plannedDelay;
            },
          },
          hooks: {
            beforeRequest: [({ request }) => send(request, 0)],
            beforeRetry: [
              async ({ request, error, retryCount }) => {
                if (!isHTTPError(error)) lostAttempt = true;
                // Short-lived tokens may have expired during the wait.
                await send(request, retryCount);
              },
            ],
            afterResponse: [
              ({ request, response, retryCount }) => {
                observe(options.onResponse, {
                  method,
                  url: request.url,
                  retryCount,
                  durationMs: Date.now() - sentAt,
                  ...info(response, key),
                });
                // A retried delete may find the key already gone because an attempt that got
                // no answer deleted it: that is success. After answered attempts only (e.g. a
                // 503), a 404 means what it says.
                if (method === 'DELETE') {
                  if (response.status === 404 && retryCount > 0 && lostAttempt) {
                    return new Response(null, { status: 204, headers: response.headers });
                  }
                } else if (response.ok) {
                  return limitBody(
                    response,
                    maxResponseBytes,
                    new WorkspaceResponseTooLargeError(what, maxResponseBytes),
                  );
                }
              },
            ],
          },
        });
        const response = await pending;
        if (method === 'DELETE') {
          // Any 2xx answers a delete: its body (if any) is not read, let alone parsed.
          response.body?.cancel().catch(() => {});
          return { body: undefined, response: info(response, key) };
        }
        // ky bounds the body read by the attempt and total timeouts (a bare
        // `response.text()` would wait forever for a body that stalls after the headers).
        const text = await pending.text();
        const result = { body: undefined as unknown, response: info(response, key) };
        if (text.trim() === '') return result;
        try {
          result.body = JSON.parse(text);
        } catch {
          throw new WorkspaceValidationError('response', what, [
            { path: '', message: 'Response body is not valid JSON' },
          ]);
        }
        return result;
      } catch (error) {
        throw toError(error);
      }
    },
  };
}

/** Status, secret-free headers and request id of a response. */
function info(response: Response, key: string | undefined): ResponseInfo {
  return {
    status: response.status,
    headers: redact(headerRecord(response.headers), key),
    requestId: requestIdOf(response.headers),
  };
}

/** Calls an observer; a failing observer must not change the outcome of the call. */
function observe<E>(observer: ((event: E) => void) | undefined, event: E): void {
  try {
    observer?.(event);
  } catch {
    // Ignored on purpose.
  }
}

interface ErrorContext {
  key: string | undefined;
  signal: AbortSignal | undefined;
  method: HttpMethod;
  path: string;
  root: string;
  /** `METHOD /path`, for messages. */
  what: string;
}

/** Maps anything thrown during a call to a secret-free `WorkspaceError`. */
function mapError(error: unknown, context: ErrorContext): WorkspaceError {
  const { what } = context;
  if (error instanceof WorkspaceError) return error;
  // A runtime may wrap the error a body stream failed with.
  if (error instanceof TypeError && error.cause instanceof WorkspaceError) return error.cause;
  if (context.signal?.aborted) {
    return new WorkspaceAbortError(`${what} was aborted`, { cause: context.signal.reason });
  }
  if (isHTTPError(error)) return apiErrorFromResponse(error.response, error.data, context.key);
  if (isTimeoutError(error)) return new WorkspaceTimeoutError(`${what} timed out`);
  // ky's errors hold the Request (with its Authorization header): keep only the raw cause.
  const cause = isKyError(error) ? error.cause : error;
  const detail = redact(cause instanceof Error ? cause.message : String(cause), context.key);
  // fetch reports every network failure as a TypeError, whatever the runtime's wording.
  if (isNetworkError(error) || cause instanceof TypeError) {
    // Name the address and the runtime's reason (`getaddrinfo ENOTFOUND host`, nested in `cause`).
    const reason = redact(causeChain(cause), context.key);
    return new WorkspaceConnectionError(
      `${context.method} ${context.root}${context.path} failed: ${reason}`,
      { cause },
    );
  }
  return new WorkspaceError(`${what} failed: ${detail}`, { cause });
}

/** `fetch failed: getaddrinfo ENOTFOUND svc.example.com`: the messages of an error's causes. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    const failure = current as {
      message?: unknown;
      code?: unknown;
      errors?: unknown;
      cause?: unknown;
    };
    const message =
      typeof failure.message === 'string' && failure.message ? failure.message : undefined;
    const text = message ?? (typeof failure.code === 'string' ? failure.code : String(current));
    if (!parts.includes(text)) parts.push(text);
    // Happy eyeballs: an AggregateError without a message holds one error per address tried.
    current = Array.isArray(failure.errors) && !message ? failure.errors[0] : failure.cause;
  }
  return parts.join(': ');
}
