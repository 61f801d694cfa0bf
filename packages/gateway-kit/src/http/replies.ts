import {
  GATEWAY_ERRORS,
  type GatewayErrorCode,
  gatewayError,
} from '../contract/error-catalogue.ts';
import type { GatewayError } from '../contract/gateway-error.ts';
import type { GatewayReply } from './gateway-call.ts';

/**
 * The headers of every JSON reply without headers of its own. Shared and frozen: replies never
 * mutate their headers (adapters copy them when they add any), and an adapter may recognise this
 * object to write its precomputed form.
 */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'cache-control': 'no-store',
});

/** A JSON reply that must not be cached. */
export function jsonReply(
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): GatewayReply {
  return {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
    body: JSON.stringify(body),
  };
}

/** An error envelope reply for a catalogue code, with the code's HTTP status. */
export function errorReply(
  code: GatewayErrorCode,
  overrides?: { message?: string; retryable?: boolean; details?: Record<string, unknown> },
  headers?: Record<string, string>,
): GatewayReply {
  return envelopeReply(GATEWAY_ERRORS[code].status, gatewayError(code, overrides), headers);
}

/** An error envelope reply: `{ error }` and nothing else. */
export function envelopeReply(
  status: number,
  error: GatewayError,
  headers?: Record<string, string>,
): GatewayReply {
  return jsonReply(status, { error }, headers);
}
