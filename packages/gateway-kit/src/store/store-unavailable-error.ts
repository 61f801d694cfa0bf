import { GatewayKitError } from '../runtime/gateway-kit-error.ts';

/**
 * A store could not reach its backend (offline, reconnecting, timed out, loading, read-only
 * replica, out of memory). It is transient: `retryable` is `true`, and the gateway answers it with
 * the `503 unavailable` envelope instead of a 500. Store adapters (such as
 * `@svc/gateway-kit-redis`) throw it; the original error is the `cause`.
 *
 * @example
 * throw new StoreUnavailableError('Redis did not answer within 2000 ms.', { cause: error });
 */
export class StoreUnavailableError extends GatewayKitError {
  override readonly name = 'StoreUnavailableError';
  /** Always true: the same call may succeed once the backend is reachable again. */
  readonly retryable = true;

  constructor(message = 'The store is unavailable.', options?: ErrorOptions) {
    super(message, options);
  }
}
