import { WorkspaceError } from './workspace-error.ts';

/** Everything known about an HTTP error response. */
export interface ApiErrorInit {
  /** HTTP status of the response. */
  readonly status: number;
  /** Machine-readable code from the body, or `http_<status>` when the body has none. */
  readonly code: string;
  /** From the body, its text (first 500 characters), or `Request failed with status <n>`. */
  readonly message: string;
  /** From the `x-request-id` (or `request-id`) header, else from the body. */
  readonly requestId: string | undefined;
  /** Response headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body, the raw text when it is not JSON, `undefined` when empty. */
  readonly body: unknown;
  /** Server-requested wait before retrying (`retry-after-ms` / `Retry-After`), in ms. */
  readonly retryAfterMs: number | undefined;
}

/**
 * The service answered with a non-2xx status (after retries, when the status is retryable).
 * Subclasses exist per status: `BadRequestError` (400), `AuthenticationError` (401),
 * `PermissionDeniedError` (403), `NotFoundError` (404), `ConflictError` (409),
 * `UnprocessableEntityError` (422), `RateLimitError` (429), `InternalServerError` (≥ 500).
 * Other statuses are thrown as `WorkspaceApiError` itself.
 *
 * @example
 * ```ts
 * try {
 *   await client.debriefs.get('weekly-2025-w01');
 * } catch (error) {
 *   if (error instanceof WorkspaceApiError) {
 *     console.error(error.status, error.code, error.requestId);
 *   }
 * }
 * ```
 */
export class WorkspaceApiError extends WorkspaceError {
  override name = 'WorkspaceApiError';
  /** HTTP status of the response. */
  readonly status: number;
  /** Machine-readable code from the body, or `http_<status>` when the body has none. */
  readonly code: string;
  /** From the `x-request-id` (or `request-id`) header, else from the body, if any. */
  readonly requestId: string | undefined;
  /** Response headers, lower-cased names; the API key replaced by `[redacted]`. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body, raw text when not JSON, `undefined` when empty; the key `[redacted]`. */
  readonly body: unknown;
  /** Server-requested wait before retrying (`retry-after-ms` / `Retry-After`), in ms, if sent. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.body = init.body;
    this.retryAfterMs = init.retryAfterMs;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      code: this.code,
      requestId: this.requestId,
      retryAfterMs: this.retryAfterMs,
      headers: this.headers,
      body: this.body,
    };
  }
}
