import * as v from 'valibot';

/**
 * The contract's Gateway error: what went wrong, and whether the same request may be tried again.
 *
 * @example
 * const error: GatewayError = { code: 'order_not_found', message: 'No such order.', retryable: false };
 */
export interface GatewayError {
  /** Machine-readable code; see docs/errors.md for the gateway's own codes. */
  code: string;
  /** Human-readable explanation. Never contains secrets or echoed input. */
  message: string;
  /** Whether the same request may be tried again. */
  retryable: boolean;
  /** Free-form structured detail (e.g. validation issues). */
  details?: Record<string, unknown>;
}

/**
 * The error envelope: `{ error }` and nothing else. Every non-200 gateway answer has this shape.
 *
 * @example
 * const body: ErrorEnvelope = { error: { code: 'unauthorized', message: 'Missing or invalid bearer token.', retryable: false } };
 */
export interface ErrorEnvelope {
  /** What went wrong. */
  error: GatewayError;
}

/** A free-form JSON object (never an array or null). */
export const JsonObjectSchema: v.GenericSchema<Record<string, unknown>> = v.pipe(
  // valibot's record accepts arrays (they are objects); a JSON object is not an array.
  v.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'Expected Object',
  ),
  v.record(v.string(), v.unknown()),
);

/**
 * Schema of a {@link GatewayError}; unknown properties are rejected.
 *
 * @example
 * v.is(GatewayErrorSchema, { code: 'x', message: 'y', retryable: false }); // true
 */
export const GatewayErrorSchema: v.GenericSchema<GatewayError> = v.strictObject({
  code: v.string(),
  message: v.string(),
  retryable: v.boolean(),
  details: v.exactOptional(JsonObjectSchema),
});

/**
 * Schema of an {@link ErrorEnvelope}; unknown properties are rejected.
 *
 * @example
 * const result = v.safeParse(ErrorEnvelopeSchema, await response.json());
 */
export const ErrorEnvelopeSchema: v.GenericSchema<ErrorEnvelope> = v.strictObject({
  error: GatewayErrorSchema,
});
