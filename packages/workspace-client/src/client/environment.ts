/**
 * True in a browser window or worker. Deno 2 and Bun define neither `document` nor
 * `WorkerGlobalScope` on the main thread, so server runtimes are not mistaken for browsers.
 */
export function isBrowserLike(): boolean {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown; Deno?: unknown };
  if (scope.Deno !== undefined) return false;
  return typeof scope.document === 'object' || typeof scope.WorkerGlobalScope === 'function';
}
