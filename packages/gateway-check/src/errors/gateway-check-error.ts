/**
 * Base class of every error `@svc/gateway-check` throws: {@link GatewayClientError} (a call to a
 * gateway gave no usable answer) and `CheckOptionsError` (an unusable option). Catch it to handle
 * both in one place; {@link isGatewayCheckError} also recognises one thrown by another copy of
 * the package (ESM and CJS builds side by side). Messages never contain tokens.
 *
 * @example
 * try { await checkGateway(options); } catch (error) { if (isGatewayCheckError(error)) console.error(error.message); }
 */
export class GatewayCheckError extends Error {
  /** The error class's name, e.g. `GatewayClientError`. */
  override readonly name: string = 'GatewayCheckError';

  /** Always `true`: what {@link isGatewayCheckError} looks for across copies of the package. */
  get isGatewayCheckError(): true {
    return true;
  }
}

/**
 * Whether `error` is one of `@svc/gateway-check`'s errors, from this or any other copy of the
 * package. Narrow further with `instanceof` or {@link isGatewayClientError}.
 *
 * @example
 * if (isGatewayCheckError(error) && error.name === 'CheckOptionsError') process.exitCode = 2;
 */
export function isGatewayCheckError(error: unknown): error is GatewayCheckError {
  return (
    error instanceof GatewayCheckError ||
    (error instanceof Error &&
      (error as { isGatewayCheckError?: unknown }).isGatewayCheckError === true)
  );
}
