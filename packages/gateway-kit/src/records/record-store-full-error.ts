/**
 * Thrown by a record store that is at capacity with live records; the gateway answers
 * `503 unavailable` (retryable) instead of dropping state it promised to keep.
 *
 * @example
 * if (error instanceof RecordStoreFullError) console.warn('raise maxRecords');
 */
export class RecordStoreFullError extends Error {
  override readonly name = 'RecordStoreFullError';
}
