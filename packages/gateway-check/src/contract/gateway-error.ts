import * as v from 'valibot';

/**
 * The contract's Gateway error.
 *
 * @example
 * const error: GatewayError = { code: 'order_not_found', message: 'No such order.', retryable: false };
 */
export interface GatewayError {
  /** Machine-readable error code. */
  code: string;
  /** Human-readable explanation. */
  message: string;
  /** Whether the same request may be tried again. */
  retryable: boolean;
  /** Free-form structured detail. */
  details?: Record<string, unknown>;
}

/**
 * The error envelope: `{ error }` and no other property.
 *
 * @example
 * const body: ErrorEnvelope = { error: { code: 'unauthorized', message: 'No token.', retryable: false } };
 */
export interface ErrorEnvelope {
  /** What went wrong. */
  error: GatewayError;
}

/**
 * A free-form JSON object (not an array, not null).
 *
 * @example
 * v.is(JsonObjectSchema, { a: 1 }); // true
 */
export const JsonObjectSchema: v.GenericSchema<Record<string, unknown>> = /* @__PURE__ */ v.pipe(
  v.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'Expected a JSON object',
  ),
  v.record(v.string(), v.unknown()),
);

/**
 * Schema of a {@link GatewayError}: the four fields of the contract's table and no other.
 *
 * @example
 * v.is(GatewayErrorSchema, { code: 'x', message: 'y', retryable: false }); // true
 */
export const GatewayErrorSchema: v.GenericSchema<GatewayError> = /* @__PURE__ */ v.strictObject({
  code: v.string(),
  message: v.string(),
  retryable: v.boolean(),
  details: v.exactOptional(JsonObjectSchema),
});

/**
 * Schema of an {@link ErrorEnvelope}.
 *
 * @example
 * v.is(ErrorEnvelopeSchema, await response.json());
 */
export const ErrorEnvelopeSchema: v.GenericSchema<ErrorEnvelope> = /* @__PURE__ */ v.strictObject({
  error: GatewayErrorSchema,
});
