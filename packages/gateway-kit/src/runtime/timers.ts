/**
 * Lets the process exit while `timer` is pending, where the runtime allows it (Node and Bun:
 * `timer.unref()`; Deno: `Deno.unrefTimer(id)`; elsewhere nothing). Internal.
 *
 * @example
 * unrefTimer(setTimeout(retry, 30_000));
 */
export function unrefTimer(timer: unknown): void {
  if (typeof timer === 'object' && timer !== null && 'unref' in timer) {
    if (typeof timer.unref === 'function') timer.unref();
  } else if (typeof timer === 'number') {
    const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
    deno?.unrefTimer?.(timer);
  }
}

/**
 * Waits `ms`, or less when `signal` aborts; never rejects. With `unref`, the pending timer does
 * not keep the process alive. Internal.
 *
 * @example
 * await abortableSleep(1_000, controller.signal, { unref: true });
 */
export function abortableSleep(
  ms: number,
  signal?: AbortSignal,
  options?: { readonly unref?: boolean },
): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (options?.unref) unrefTimer(timer);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
