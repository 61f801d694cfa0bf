import { type ApiErrorInit, WorkspaceApiError } from './api-error.ts';
import { AuthenticationError } from './authentication-error.ts';
import { BadRequestError } from './bad-request-error.ts';
import { ConflictError } from './conflict-error.ts';
import { InternalServerError } from './internal-server-error.ts';
import { NotFoundError } from './not-found-error.ts';
import { PermissionDeniedError } from './permission-denied-error.ts';
import { RateLimitError } from './rate-limit-error.ts';
import { redact } from './redact.ts';
import { parseRetryAfterMs } from './retry-after.ts';
import { UnprocessableEntityError } from './unprocessable-entity-error.ts';

const byStatus: Record<number, typeof WorkspaceApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * Reads `code` and `message` from the error bodies this client understands:
 * the contract's envelope `{ error: { code, message } }`, `{ error: "text", code }`,
 * flat `{ code, message }`, or plain text.
 */
function describe(body: unknown, status: number): { code: string; message: string; id?: string } {
  const fallback = { code: `http_${status}`, message: `Request failed with status ${status}` };
  if (typeof body === 'string')
    return { ...fallback, message: body.slice(0, 500) || fallback.message };
  if (body === null || typeof body !== 'object') return fallback;
  const record = body as Record<string, unknown>;
  const nested =
    record.error !== null && typeof record.error === 'object'
      ? (record.error as Record<string, unknown>)
      : undefined;
  const code = str(nested?.code) ?? str(record.code) ?? fallback.code;
  const message =
    str(nested?.message) ?? str(record.error) ?? str(record.message) ?? fallback.message;
  const id = str(record.requestId) ?? str(nested?.requestId);
  return id === undefined ? { code, message } : { code, message, id };
}

/**
 * Builds the `WorkspaceApiError` subclass matching `response.status` from a response whose
 * body was already read (`data`: parsed JSON, text, or `undefined` when empty). The `secret`
 * is scrubbed from everything kept.
 */
export function apiErrorFromResponse(
  response: Response,
  data: unknown,
  secret: string | undefined,
): WorkspaceApiError {
  let body = data === '' ? undefined : data;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // Not JSON: keep the text as the body.
    }
  }
  body = redact(body, secret);
  const headers = redact(Object.fromEntries(response.headers), secret);
  const { code, message, id } = describe(body, response.status);
  // `message` and `code` come from the redacted body, so they are secret-free too.
  const init: ApiErrorInit = {
    status: response.status,
    code,
    message,
    requestId: response.headers.get('x-request-id') ?? response.headers.get('request-id') ?? id,
    headers,
    body,
    retryAfterMs: parseRetryAfterMs(response.headers),
  };
  const ErrorClass =
    byStatus[response.status] ?? (response.status >= 500 ? InternalServerError : WorkspaceApiError);
  return new ErrorClass(init);
}
