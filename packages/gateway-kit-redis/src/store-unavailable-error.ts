/**
 * A Redis store could not reach Redis (offline, reconnecting, timed out, loading, read-only
 * replica, out of memory). It is transient: `retryable` is `true` and the name is
 * `StoreUnavailableError`, which `createGateway` answers with a `503 unavailable` envelope instead
 * of a 500. The original error is the `cause`.
 *
 * @example
 * try {
 *   await store.get('job_1');
 * } catch (error) {
 *   if (isStoreUnavailableError(error)) console.warn('Redis is unreachable:', error.cause);
 * }
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** Always true: the same call may succeed once Redis is reachable again. */
  readonly retryable = true;

  constructor(message = 'The Redis store is unavailable.', options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * Whether `error` is a {@link StoreUnavailableError}. Checks the name, so it also works when the
 * ESM and CJS builds are both loaded.
 *
 * @example
 * if (isStoreUnavailableError(error)) return new Response(null, { status: 503 });
 */
export function isStoreUnavailableError(error: unknown): error is StoreUnavailableError {
  return error instanceof Error && error.name === 'StoreUnavailableError';
}
