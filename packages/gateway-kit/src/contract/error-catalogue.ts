import type { GatewayError } from './gateway-error.ts';

/** A code from the gateway's own catalogue (docs/errors.md). */
export type GatewayErrorCode =
  | 'malformed_request'
  | 'malformed_json'
  | 'unauthorized'
  | 'forbidden_host'
  | 'not_found'
  | 'job_not_found'
  | 'method_not_allowed'
  | 'job_not_cancellable'
  | 'approval_not_found'
  | 'idempotency_in_progress'
  | 'idempotency_mismatch'
  | 'idempotency_replay_unavailable'
  | 'request_timeout'
  | 'quota_exceeded'
  | 'result_too_large'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'unsupported_media_type'
  | 'invalid_request'
  | 'unknown_action'
  | 'invalid_input'
  | 'internal_error'
  | 'unavailable'
  | 'deadline_exceeded';

/** One catalogue entry: the HTTP status it is answered with, retryability and default message. */
export interface CatalogueEntry {
  /** HTTP status of the answer; 200 for a code answered inside a `rejected` response. */
  readonly status: number;
  /** Whether the same request may be tried again. */
  readonly retryable: boolean;
  /** Default human-readable message. */
  readonly message: string;
}

/**
 * Every error code the gateway itself produces, with its HTTP status and whether the same request
 * may be retried. This is the closed catalogue documented in docs/errors.md. Codes answered inside
 * a 200 `rejected` response have status 200.
 */
export const GATEWAY_ERRORS: Readonly<Record<GatewayErrorCode, CatalogueEntry>> =
  /* @__PURE__ */ frozen({
    malformed_request: {
      status: 400,
      retryable: false,
      message: 'The request is not valid HTTP/1.1.',
    },
    malformed_json: {
      status: 400,
      retryable: false,
      message: 'The request body is not valid JSON.',
    },
    unauthorized: { status: 401, retryable: false, message: 'Missing or invalid bearer token.' },
    forbidden_host: {
      status: 403,
      retryable: false,
      message:
        'This server listens on loopback and answers only requests addressed to a loopback host (Host and Origin); add the host to allowedHosts to serve it deliberately.',
    },
    not_found: { status: 404, retryable: false, message: 'No such route.' },
    job_not_found: { status: 404, retryable: false, message: 'No such job.' },
    method_not_allowed: {
      status: 405,
      retryable: false,
      message: 'Method not allowed on this route.',
    },
    approval_not_found: { status: 404, retryable: false, message: 'No such approval.' },
    job_not_cancellable: {
      status: 409,
      retryable: false,
      message: 'The job has already finished.',
    },
    idempotency_in_progress: {
      status: 409,
      retryable: true,
      message: 'A request with this idempotency key is still running.',
    },
    idempotency_mismatch: {
      status: 422,
      retryable: false,
      message: 'This idempotency key was used for a different request.',
    },
    idempotency_replay_unavailable: {
      status: 409,
      retryable: false,
      message:
        'This idempotency key was already answered, and the answer was too large to keep for replay.',
    },
    request_timeout: {
      status: 408,
      retryable: true,
      message: 'The request was not received in time.',
    },
    quota_exceeded: {
      status: 429,
      retryable: true,
      message: 'This caller has too much work pending at the gateway; retry later.',
    },
    result_too_large: {
      status: 200,
      retryable: false,
      message: 'The action result is larger than the gateway keeps.',
    },
    payload_too_large: { status: 413, retryable: false, message: 'The request body is too large.' },
    headers_too_large: {
      status: 431,
      retryable: false,
      message: 'The request headers are too large.',
    },
    unsupported_media_type: {
      status: 415,
      retryable: false,
      message: 'The request body must be sent as application/json.',
    },
    invalid_request: {
      status: 422,
      retryable: false,
      message: 'The request does not match the contract.',
    },
    unknown_action: { status: 422, retryable: false, message: 'The gateway has no such action.' },
    invalid_input: { status: 422, retryable: false, message: 'The action input is invalid.' },
    internal_error: { status: 500, retryable: false, message: 'The action failed unexpectedly.' },
    unavailable: {
      status: 503,
      retryable: true,
      message: 'The gateway is temporarily unavailable.',
    },
    deadline_exceeded: {
      status: 200,
      retryable: true,
      message: 'The action did not finish before its deadline.',
    },
  });

/**
 * The catalogue and its entries frozen: the gateway answers from it, so code that imports it must
 * not be able to change a status or a message.
 */
// @__NO_SIDE_EFFECTS__
function frozen<T extends Record<string, object>>(catalogue: T): Readonly<T> {
  for (const entry of Object.values(catalogue)) Object.freeze(entry);
  return Object.freeze(catalogue);
}

/**
 * Builds a catalogue error, optionally overriding `retryable` or the message and adding details.
 *
 * @example
 * gatewayError('unknown_action'); // { code: 'unknown_action', message: 'The gateway has no such action.', retryable: false }
 */
export function gatewayError(
  code: GatewayErrorCode,
  overrides: { message?: string; retryable?: boolean; details?: Record<string, unknown> } = {},
): GatewayError {
  const entry = GATEWAY_ERRORS[code];
  const error: GatewayError = {
    code,
    message: overrides.message ?? entry.message,
    retryable: overrides.retryable ?? entry.retryable,
  };
  if (overrides.details) error.details = overrides.details;
  return error;
}
