import ky, { isHTTPError, isKyError, isNetworkError, isTimeoutError } from 'ky';
import { WorkspaceAbortError } from '../errors/abort-error.js';
import { WorkspaceConfigError } from '../errors/config-error.js';
import { WorkspaceConnectionError } from '../errors/connection-error.js';
import { apiErrorFromResponse } from '../errors/from-response.js';
import { redact } from '../errors/redact.js';
import { parseRetryAfterMs } from '../errors/retry-after.js';
import { WorkspaceTimeoutError } from '../errors/timeout-error.js';
import { WorkspaceValidationError } from '../errors/validation-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { backoffDelay } from './backoff.js';
import { isBrowserLike } from './environment.js';
import type { RequestOptions, RetryEvent, RetryPolicy, WorkspaceClientOptions } from './options.js';

/** HTTP methods the workspace API uses. */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** Sends one logical call (with retries) and returns the parsed JSON body, or `undefined`. */
export interface Transport {
  readonly validateResponses: boolean;
  request(
    method: HttpMethod,
    path: string,
    body: unknown,
    options: RequestOptions | undefined,
  ): Promise<unknown>;
}

/** Statuses retried by default; 409 and other 4xx never are. */
export const RETRY_STATUS_CODES: readonly number[] = [408, 429, 500, 502, 503, 504];

const DEFAULTS = {
  limit: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  jitter: true,
  timeout: 30_000,
  totalTimeout: 120_000,
} as const;

type ResolvedPolicy = Required<{ [K in keyof RetryPolicy]: NonNullable<RetryPolicy[K]> }>;

function resolvePolicy(...layers: (RetryPolicy | number | undefined)[]): ResolvedPolicy {
  const policy: ResolvedPolicy = {
    limit: DEFAULTS.limit,
    baseDelayMs: DEFAULTS.baseDelayMs,
    maxDelayMs: DEFAULTS.maxDelayMs,
    maxRetryAfterMs: DEFAULTS.maxRetryAfterMs,
    jitter: DEFAULTS.jitter,
  };
  for (const layer of layers) {
    if (layer === undefined) continue;
    const entries = typeof layer === 'number' ? { limit: layer } : layer;
    for (const [key, value] of Object.entries(entries)) {
      if (value !== undefined) Object.assign(policy, { [key]: value });
    }
  }
  if (!Number.isInteger(policy.limit) || policy.limit < 0) {
    throw new WorkspaceConfigError('retry.limit must be a non-negative integer');
  }
  for (const key of ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    if (!(policy[key] >= 0)) throw new WorkspaceConfigError(`retry.${key} must be a number ≥ 0`);
  }
  return policy;
}

/**
 * What a bearer token may contain here: printable ASCII without spaces. Anything else (a
 * trailing newline read from a file, a pasted space) would be refused by `Headers` with an
 * error quoting the key, so it is refused earlier with a message that never shows it.
 */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

const INVALID_KEY_MESSAGE =
  'apiKey must be printable ASCII without spaces or line breaks (check for a trailing newline)';

/** Headers the client owns: a user `headers` entry never replaces them. */
const RESERVED_HEADERS = ['accept', 'authorization', 'content-type'];

function userHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(
      ([name]) => !RESERVED_HEADERS.includes(name.toLowerCase()),
    ),
  );
}

function resolveRoot(baseUrl: unknown): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new WorkspaceConfigError(
      'baseUrl must be an absolute http(s) URL, e.g. "https://svc.example.com"',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WorkspaceConfigError('baseUrl must use http: or https:');
  }
  if (url.username !== '' || url.password !== '') {
    throw new WorkspaceConfigError('baseUrl must not contain credentials; use apiKey');
  }
  const path = url.pathname.replace(/\/+$/, '');
  const prefixed = path.endsWith('/api/v1/org') ? path : `${path}/api/v1/org`;
  return `${url.origin}${prefixed}`;
}

/**
 * Validates the client options and returns the transport every resource uses. Throws
 * `WorkspaceConfigError` synchronously for unusable options.
 */
export function createTransport(options: WorkspaceClientOptions): Transport {
  if (options === null || typeof options !== 'object') {
    throw new WorkspaceConfigError('Options are required: { baseUrl, apiKey }');
  }
  const root = resolveRoot(options.baseUrl);
  const { apiKey } = options;
  if (typeof apiKey === 'string' ? apiKey.trim() === '' : typeof apiKey !== 'function') {
    throw new WorkspaceConfigError(
      'apiKey is required: a workspace key string or a function returning a token',
    );
  }
  if (typeof apiKey === 'string' && !KEY_PATTERN.test(apiKey)) {
    throw new WorkspaceConfigError(INVALID_KEY_MESSAGE);
  }
  if (typeof apiKey === 'string' && isBrowserLike() && options.dangerouslyAllowBrowser !== true) {
    throw new WorkspaceConfigError(
      'Refusing to use a workspace key in a browser: it is a workspace-admin secret. ' +
        'Pass apiKey as an async function returning a short-lived token from your backend, ' +
        'or set dangerouslyAllowBrowser: true if you understand the risk.',
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new WorkspaceConfigError('fetch must be a function');
  }
  // Validate the client-level policy now so mistakes surface at construction.
  resolvePolicy(options.retry);

  const resolveKey = async (): Promise<string> => {
    if (typeof apiKey === 'string') return apiKey;
    let key: unknown;
    try {
      key = await apiKey();
    } catch (error) {
      throw new WorkspaceError('The apiKey function failed', { cause: error });
    }
    if (typeof key !== 'string' || key.trim() === '') {
      throw new WorkspaceConfigError('The apiKey function must return a non-empty string');
    }
    if (!KEY_PATTERN.test(key)) {
      throw new WorkspaceConfigError(
        `The apiKey function returned an unusable token: ${INVALID_KEY_MESSAGE}`,
      );
    }
    return key;
  };

  return {
    validateResponses: options.validateResponses !== false,
    async request(method, path, body, call) {
      const policy = resolvePolicy(options.retry, call?.retry);
      const signal = call?.signal;
      const totalTimeout = call?.totalTimeout ?? options.totalTimeout ?? DEFAULTS.totalTimeout;
      const startedAt = Date.now();
      // Per-call state shared by ky's retry callbacks below.
      let key: string | undefined = typeof apiKey === 'string' ? apiKey : undefined;
      let serverDelay: number | undefined;
      let lastError: unknown;

      const toError = (error: unknown): WorkspaceError =>
        mapError(error, { key, signal, method, path, root });

      const headers: Record<string, string> = {
        ...userHeaders(options.headers),
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
      // Sets Authorization from a freshly resolved key. Never lets the runtime's own error
      // escape: it would quote the header value.
      const authorize = async (request: Request): Promise<void> => {
        key = await resolveKey();
        try {
          request.headers.set('authorization', `Bearer ${key}`);
        } catch {
          throw new WorkspaceConfigError(INVALID_KEY_MESSAGE);
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
            shouldRetry: ({ error }) => {
              lastError = error;
              if (signal?.aborted) return false;
              if (isHTTPError(error)) {
                if (!RETRY_STATUS_CODES.includes(error.response.status)) return false;
                const after = parseRetryAfterMs(error.response.headers);
                if (after !== undefined) {
                  // Fail fast rather than wait longer than allowed (or than the call has left).
                  if (after > policy.maxRetryAfterMs) return false;
                  if (
                    typeof totalTimeout === 'number' &&
                    Date.now() - startedAt + after > totalTimeout
                  ) {
                    return false;
                  }
                  serverDelay = after;
                }
                return true;
              }
              // ky does not recognise every runtime's network failure (e.g. Bun's), but
              // fetch always reports one as a TypeError.
              return isTimeoutError(error) || isNetworkError(error) || error instanceof TypeError;
            },
            delay: (attempt) => {
              const delayMs = serverDelay ?? backoffDelay(attempt, policy);
              serverDelay = undefined;
              notify(options.onRetry, {
                attempt,
                delayMs,
                error: toError(lastError),
                method,
                path,
              });
              return delayMs;
            },
          },
          hooks: {
            beforeRequest: [({ request }) => authorize(request)],
            beforeRetry: [
              async ({ request, error }) => {
                if (!isHTTPError(error)) lostAttempt = true;
                // Short-lived tokens may have expired during the wait.
                if (typeof apiKey === 'function') await authorize(request);
              },
            ],
            afterResponse: [
              ({ request, response, retryCount }) => {
                // A retried delete may find the key already gone because an attempt that got
                // no answer deleted it: that is success. After answered attempts only (e.g. a
                // 503), a 404 means what it says.
                if (
                  request.method === 'DELETE' &&
                  response.status === 404 &&
                  retryCount > 0 &&
                  lostAttempt
                ) {
                  return new Response(null, { status: 204 });
                }
              },
            ],
          },
        });
        if (method === 'DELETE') {
          // Any 2xx answers a delete: its body (if any) is not read, let alone parsed.
          const response = await pending;
          response.body?.cancel().catch(() => {});
          return undefined;
        }
        // ky bounds the body read by the attempt and total timeouts (a bare
        // `response.text()` would wait forever for a body that stalls after the headers).
        const text = await pending.text();
        if (text.trim() === '') return undefined;
        try {
          return JSON.parse(text);
        } catch {
          throw new WorkspaceValidationError('response', `${method} ${path}`, [
            { path: '', message: 'Response body is not valid JSON' },
          ]);
        }
      } catch (error) {
        throw toError(error);
      }
    },
  };
}

function notify(onRetry: ((event: RetryEvent) => void) | undefined, event: RetryEvent): void {
  try {
    onRetry?.(event);
  } catch {
    // A failing observer must not change the outcome of the call.
  }
}

interface ErrorContext {
  key: string | undefined;
  signal: AbortSignal | undefined;
  method: HttpMethod;
  path: string;
  root: string;
}

/** Maps anything thrown during a call to a secret-free `WorkspaceError`. */
function mapError(error: unknown, context: ErrorContext): WorkspaceError {
  const what = `${context.method} ${context.path}`;
  if (error instanceof WorkspaceError) return error;
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
