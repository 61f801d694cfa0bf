/** What {@link withinBudget} resolves to when the work did not settle in time. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * Waits for `pending` at most `budgetMs`. On time-out, `controller` (if given) is aborted with a
 * `TimeoutError`, so the work can stop, and {@link TIMED_OUT} is returned. The timer never
 * outlives the race.
 */
export async function withinBudget<T>(
  pending: PromiseLike<T>,
  budgetMs: number,
  controller?: AbortController,
): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      controller?.abort(new DOMException('The work ran out of time.', 'TimeoutError'));
      resolve(TIMED_OUT);
    }, budgetMs);
  });
  try {
    return await Promise.race([pending, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a value is a promise (or any thenable). */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
