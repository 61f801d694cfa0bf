/**
 * What {@link withinBudget} resolves to when the work did not settle within its budget: its time
 * ran out, or its signal aborted first.
 */
export const TIMED_OUT: unique symbol = Symbol('timed out');

const SETTLED: Promise<void> = Promise.resolve();

/** The limits of one {@link withinBudget} wait. */
export interface Budget {
  /** Longest wait in ms; without it, only `signal` can end the wait early. */
  readonly budgetMs?: number | undefined;
  /** Ends the wait as soon as it aborts (an aborted signal ends it at once). */
  readonly signal?: AbortSignal | undefined;
  /** Called once when `budgetMs` runs out, before the wait resolves: abort the work here. */
  readonly onTimeout?: (() => void) | undefined;
}

/**
 * The one race of the kit: waits for `pending` until `budget.budgetMs` passed or `budget.signal`
 * aborted, whichever is first, and then resolves {@link TIMED_OUT}. A rejection of `pending` before
 * that rejects; one after it is ignored. One promise and at most one timer and one listener, none
 * of which outlives the wait; without a `signal`, work that has settled already (an `async`
 * function that awaited nothing) costs no timer. Internal.
 *
 * @example
 * const principal = await withinBudget(verify(token), { budgetMs: VERIFY_TIMEOUT_MS });
 * if (principal === TIMED_OUT) return errorReply('unavailable');
 */
export function withinBudget<T>(
  pending: PromiseLike<T>,
  budget: Budget,
): Promise<T | typeof TIMED_OUT> {
  const { budgetMs, signal, onTimeout } = budget;
  if (signal === undefined) {
    // The hot path (every precheck and verify): one promise and at most one timer.
    return new Promise((resolve, reject) =>
      raceBudget(pending, budgetMs, resolve, reject, () => {
        onTimeout?.();
        resolve(TIMED_OUT);
      }),
    );
  }
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const lose = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', lose);
      resolve(TIMED_OUT);
    };
    const settle = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', lose);
    };
    pending.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
    if (signal.aborted) return lose();
    signal.addEventListener('abort', lose, { once: true });
    if (budgetMs !== undefined) {
      timer = setTimeout(() => {
        onTimeout?.();
        lose();
      }, budgetMs);
    }
  });
}

/**
 * {@link withinBudget}'s race without a signal, for a caller that settles its own promise (and so
 * maps the outcome in the same step, with no promise in between): exactly one of `onValue`,
 * `onError` and `onTimedOut` is called, once. At most one timer, and none for work that has
 * settled already. Internal.
 *
 * @example
 * new Promise((resolve) => raceBudget(work, 500, resolve, resolve, () => resolve('late')));
 */
export function raceBudget<T>(
  pending: PromiseLike<T>,
  budgetMs: number | undefined,
  onValue: (value: T) => void,
  onError: (error: unknown) => void,
  onTimedOut: () => void,
): void {
  let settled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  pending.then(
    (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      onValue(value);
    },
    (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      onError(error);
    },
  );
  if (budgetMs === undefined) return;
  // The timer is armed one microtask later, after the reactions of work that has settled
  // already (an `async` function that did not wait for anything): most such waits then need
  // no timer at all. The budget starts microseconds later, far below timers' resolution.
  // (A reaction of a settled promise, not queueMicrotask: Node wraps each of those in an
  // AsyncResource.)
  SETTLED.then(() => {
    if (settled) return;
    timer = setTimeout(() => {
      settled = true;
      onTimedOut();
    }, budgetMs);
  });
}

/**
 * An abort for work that ran out of time: `controller.abort()` with a `TimeoutError`.
 *
 * @example
 * await withinBudget(run(signal), { budgetMs, onTimeout: abortOnTimeout(controller) });
 */
export function abortOnTimeout(controller: AbortController): () => void {
  return () => controller.abort(new DOMException('The work ran out of time.', 'TimeoutError'));
}

/** Whether a value is a promise (or any thenable). */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
