/**
 * A mistake in the options of `createMcpHandler` or `serveStdio`, thrown when they are called.
 *
 * @example
 * try {
 *   createMcpHandler(gateway, { waitMs: -1 });
 * } catch (error) {
 *   if (error instanceof McpConfigError) console.error(error.message);
 * }
 */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}
