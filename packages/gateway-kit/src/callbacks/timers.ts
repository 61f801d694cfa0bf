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

/**
 * Resolves with `promise`'s value, or `undefined` as soon as `signal` aborts (then
 * `promise` is left to settle on its own, its rejection ignored). Rejects when `promise` rejects
 * first. Internal.
 *
 * @example
 * const addresses = await raceAbort(resolveHost(name), attemptSignal);
 * if (addresses === undefined) return 'timed out or aborted';
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(undefined);
  }
  let onAbort = (): void => undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() =>
    signal.removeEventListener('abort', onAbort),
  );
}
