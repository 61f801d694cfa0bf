/**
 * A mistake in the arguments of `createMcpHandler`, `serveStdio`, `actionTools` or `actionTool`
 * (a missing gateway, an unknown option, a value out of range), thrown when they are called.
 *
 * @example
 * try {
 *   createMcpHandler(gateway, { waitMs: -1 });
 * } catch (error) {
 *   if (error instanceof McpConfigError) console.error(error.message);
 * }
 */
export class McpConfigError extends Error {
  /** Always `'McpConfigError'`. */
  override readonly name = 'McpConfigError';

  /** Always `true`: what {@link isMcpConfigError} looks for across copies of the package. */
  get isMcpConfigError(): true {
    return true;
  }
}

/**
 * Whether `error` is a {@link McpConfigError}, from this or any other copy of the package (its
 * ESM and CJS builds side by side). The package's one error class, and so its one guard.
 *
 * @example
 * try { createMcpHandler(gateway, options); } catch (error) { if (isMcpConfigError(error)) console.error(error.message); }
 */
export function isMcpConfigError(error: unknown): error is McpConfigError {
  return (
    error instanceof McpConfigError ||
    (error instanceof Error && (error as { isMcpConfigError?: unknown }).isMcpConfigError === true)
  );
}
