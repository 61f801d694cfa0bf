import type { WorkspaceError } from '../errors/workspace-error.ts';

/** A workspace key, or a function returning one (called before each attempt). */
export type ApiKey = string | (() => string | Promise<string>);

/**
 * Retry policy. Retries happen on network errors, timeouts and HTTP 408, 429, 500, 502, 503
 * and 504 — never on 409 or any other 4xx.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. Default `2`; `0` disables retries. */
  limit?: number | undefined;
  /** First backoff delay; doubles each retry. Default `500` ms. */
  baseDelayMs?: number | undefined;
  /** Cap of one backoff delay. Default `8000` ms. */
  maxDelayMs?: number | undefined;
  /**
   * Longest server-requested wait (`Retry-After` / `retry-after-ms`) that is honoured.
   * Above it the call fails at once with the error (a `RateLimitError` for 429) carrying
   * `retryAfterMs`. Default `60000` ms.
   */
  maxRetryAfterMs?: number | undefined;
  /** Randomise each backoff delay by ±25 % so many clients do not retry in step. Default `true`. */
  jitter?: boolean | undefined;
}

/** What `onRetry` is told before the client waits and tries again. */
export interface RetryEvent {
  /** 1 for the first retry, 2 for the second, ... */
  readonly attempt: number;
  /** How long the client waits before the retry, in ms. */
  readonly delayMs: number;
  /** Why the previous attempt failed (secret-free). */
  readonly error: WorkspaceError;
  /** HTTP method of the request, e.g. `PUT`. */
  readonly method: string;
  /** Path below `/api/v1/org`, e.g. `/debriefs`. */
  readonly path: string;
}

/**
 * What the service answered to a successful call (the last attempt's response).
 *
 * @example
 * ```ts
 * const { response } = await client.skills.upsert(skill).withResponse();
 * if (response.status === 201) console.log('created', response.requestId);
 * ```
 */
export interface ResponseInfo {
  /** HTTP status, e.g. `201` for a created and `200` for a replaced upsert. */
  readonly status: number;
  /** Response headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** From the `x-request-id` (or `request-id`) header; quote it when asking the service's team. */
  readonly requestId: string | undefined;
}

/**
 * What `withResponse()` resolves to: the call's result and the response it came from.
 *
 * @example
 * ```ts
 * const { data, response }: WithResponse<Debrief> = await client.debriefs.get(id).withResponse();
 * ```
 */
export interface WithResponse<T> {
  /** The call's result, as awaiting the call gives it. */
  readonly data: T;
  /** The response the result came from. */
  readonly response: ResponseInfo;
}

/**
 * The promise every client method returns: await it for the data, or call `withResponse()`
 * for the data and the response's status, headers and request id.
 *
 * @example
 * ```ts
 * const { data, response } = await client.debriefs.upsert(debrief).withResponse();
 * console.log(response.status, response.requestId, data.externalId);
 * ```
 */
export interface WorkspacePromise<T> extends Promise<T> {
  /** Resolves to `{ data, response }` instead of the data alone (one request either way). */
  withResponse(): Promise<WithResponse<T>>;
}

/**
 * What `onRequest` sees before each attempt is sent.
 *
 * @example
 * ```ts
 * createWorkspaceClient({ baseUrl, apiKey, onRequest: (e) => log.debug(e.method, e.url, e.headers) });
 * ```
 */
export interface RequestEvent {
  /** HTTP method of the request, e.g. `PUT`. */
  readonly method: string;
  /** Absolute request URL. */
  readonly url: string;
  /** Request headers, lower-cased names; `authorization` reads `Bearer [redacted]`. */
  readonly headers: Readonly<Record<string, string>>;
  /** 0 for the first attempt, 1 for the first retry, ... */
  readonly retryCount: number;
}

/**
 * What `onResponse` sees for each answered attempt (including error statuses).
 *
 * @example
 * ```ts
 * createWorkspaceClient({
 *   baseUrl,
 *   apiKey,
 *   onResponse: (e) => log.info(`${e.method} ${e.url} ${e.status} ${e.requestId} ${e.durationMs} ms`),
 * });
 * ```
 */
export interface ResponseEvent extends ResponseInfo {
  /** HTTP method of the request, e.g. `PUT`. */
  readonly method: string;
  /** Absolute request URL. */
  readonly url: string;
  /** 0 for the first attempt, 1 for the first retry, ... */
  readonly retryCount: number;
  /** Time from sending the attempt to its response headers, in ms. */
  readonly durationMs: number;
}

/** Options of `createWorkspaceClient`. */
export interface WorkspaceClientOptions {
  /**
   * Service base address, e.g. `https://svc.example.com`. Requests go to
   * `{baseUrl}/api/v1/org/...` (a `baseUrl` already ending in `/api/v1/org` is accepted).
   */
  baseUrl: string | URL;
  /**
   * The workspace key (sent as `Authorization: Bearer <key>`), or an async function returning
   * a short-lived token. Must be printable ASCII without spaces or line breaks, else
   * `WorkspaceConfigError` (which never quotes it). Never logged and never part of an error.
   */
  apiKey: ApiKey;
  /** A `fetch` implementation to use instead of `globalThis.fetch`. */
  fetch?: ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) | undefined;
  /**
   * Per-attempt timeout in ms (waiting for the headers, then reading the body), or `false`.
   * Default `30000`. Timeouts must be whole numbers from 1 to 2147483647, else
   * `WorkspaceConfigError`.
   */
  timeout?: number | false | undefined;
  /** Timeout of a whole call (every attempt and wait) in ms, or `false`. Default `120000`. */
  totalTimeout?: number | false | undefined;
  /** Retry policy, or a number as shorthand for `{ limit }`. */
  retry?: RetryPolicy | number | undefined;
  /**
   * Called before each retry wait, only for a retry that will happen. Exceptions thrown by
   * it are ignored.
   */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Called before each attempt is sent (for logging; the key is redacted). Exceptions are ignored. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
  /** Called when an attempt is answered, whatever the status. Exceptions are ignored. */
  onResponse?: ((event: ResponseEvent) => void) | undefined;
  /**
   * Largest successful response body read, in bytes; a larger one is abandoned with
   * `WorkspaceResponseTooLargeError` (not retried). Default `16777216` (16 MiB).
   */
  maxResponseBytes?: number | undefined;
  /**
   * Validate response bodies against the tolerant reader schemas. Default `true`. `false`
   * skips the schemas only: a non-JSON body, a list answer holding no array and an empty
   * `debriefs.get` body still throw `WorkspaceValidationError`.
   */
  validateResponses?: boolean | undefined;
  /**
   * Extra request headers. `Content-Type`, `Accept` and `Authorization` (any case) are
   * ignored: the client sets them. Keep them CORS-safelisted if the client runs in a browser.
   */
  headers?: Record<string, string> | undefined;
  /**
   * Allow a string workspace key in a browser. The key is a workspace-admin secret: prefer an
   * async `apiKey` that fetches a short-lived token from your own backend.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/** Per-call options, accepted as the last argument of every method. */
export interface RequestOptions {
  /** Abort the call (also interrupts a retry wait, or a wait for an async `apiKey`, at once). */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms, or `false`; overrides the client's. */
  timeout?: number | false | undefined;
  /** Timeout of the whole call in ms, or `false`; overrides the client's. */
  totalTimeout?: number | false | undefined;
  /** Retry policy of this call, merged over the client's. */
  retry?: RetryPolicy | number | undefined;
  /**
   * Extra headers of this call, merged over the client's `headers` (same rules: `Content-Type`,
   * `Accept` and `Authorization` are ignored). E.g. `{ 'x-correlation-id': id }`.
   */
  headers?: Record<string, string> | undefined;
}
