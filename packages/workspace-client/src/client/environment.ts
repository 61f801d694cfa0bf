/**
 * True in a browser window or worker. Deno 2 and Bun define neither `document` nor
 * `WorkerGlobalScope` on the main thread. A Deno with a DOM shim is recognised by
 * `Deno.version.deno` being a string, which a page cannot forge by DOM clobbering: an element
 * with `id="Deno"` makes `window.Deno` an element, never a string-valued version.
 */
export function isBrowserLike(): boolean {
  const scope = globalThis as {
    document?: unknown;
    WorkerGlobalScope?: unknown;
    Deno?: { version?: { deno?: unknown } };
  };
  const browser =
    typeof scope.document === 'object' || typeof scope.WorkerGlobalScope === 'function';
  return browser && typeof scope.Deno?.version?.deno !== 'string';
}
