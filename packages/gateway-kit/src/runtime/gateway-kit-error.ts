/**
 * Base class of every error `@svc/gateway-kit` throws: `GatewayConfigError` (and its
 * `CallbackConfigError`), `ApprovalDecisionError`, `StoreUnavailableError`, `JobStoreFullError`,
 * `JobQuotaError`, `RecordStoreFullError`. Catch it to handle any of them in one place; {@link isGatewayKitError}
 * also recognises one thrown by another copy of the package (ESM and CJS builds side by side).
 *
 * @example
 * try { createGateway(options); } catch (error) { if (isGatewayKitError(error)) console.error(error.name, error.message); }
 */
export class GatewayKitError extends Error {
  /** The error class's name, e.g. `GatewayConfigError`. */
  override readonly name: string = 'GatewayKitError';

  /** Always `true`: what {@link isGatewayKitError} looks for across copies of the package. */
  get isGatewayKitError(): true {
    return true;
  }
}

/**
 * Whether `error` is one of `@svc/gateway-kit`'s errors, from this or any other copy of the
 * package. Narrow further with `instanceof` or the `is…Error` checks of `/store`.
 *
 * @example
 * if (isGatewayKitError(error) && 'retryable' in error && error.retryable) retryLater();
 */
export function isGatewayKitError(error: unknown): error is GatewayKitError {
  return (
    error instanceof GatewayKitError ||
    (error instanceof Error &&
      (error as { isGatewayKitError?: unknown }).isGatewayKitError === true)
  );
}
