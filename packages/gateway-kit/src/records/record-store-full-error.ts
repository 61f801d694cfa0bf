import { GatewayKitError } from '../runtime/gateway-kit-error.ts';

/**
 * Thrown by a record store that is at capacity with live records; the gateway answers
 * `503 unavailable` (retryable) instead of dropping state it promised to keep.
 *
 * @example
 * if (error instanceof RecordStoreFullError) console.warn('raise maxRecords');
 */
export class RecordStoreFullError extends GatewayKitError {
  override readonly name = 'RecordStoreFullError';
  /** A full store is a temporary condition: the same request may succeed later. */
  readonly retryable = true;
}

/**
 * Whether `error` is a {@link RecordStoreFullError}, by name so that it also recognises one thrown
 * by another copy of this package (ESM and CJS builds loaded side by side, or an adapter's).
 *
 * @example
 * if (isRecordStoreFullError(error)) return retryLater();
 */
export function isRecordStoreFullError(error: unknown): error is RecordStoreFullError {
  return error instanceof Error && error.name === 'RecordStoreFullError';
}
