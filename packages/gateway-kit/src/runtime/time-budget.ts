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
    return new Promise((resolve, reject) => {
      new SettleOnce(resolve, reject, onTimeout).start(pending, budgetMs);
    });
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
 * {@link withinBudget}'s race without a signal, as a base class for a caller that settles its own
 * promise (and so maps the outcome in the same step, with no promise in between): exactly one of
 * `won`, `failed` and `timedOut` is called, once. The race's state lives on the subclass's one
 * object (its methods on the prototype), so a race costs that object and three small closures,
 * not a closure per outcome. At most one timer, and none for work that has settled already.
 * Internal.
 *
 * @example
 * class Late extends BudgetRace<number> {
 *   constructor(readonly done: (value: number | 'late') => void) { super(); }
 *   protected won(value: number): void { this.done(value); }
 *   protected failed(): void { this.done('late'); }
 *   protected timedOut(): void { this.done('late'); }
 * }
 * new Late(console.log).start(work, 500);
 */
export abstract class BudgetRace<T> {
  #settled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  protected abstract won(value: T): void;
  protected abstract failed(error: unknown): void;
  protected abstract timedOut(): void;

  /** Starts the race of `pending` against `budgetMs` (no time limit when `undefined`). */
  start(pending: PromiseLike<T>, budgetMs: number | undefined): void {
    pending.then(
      (value) => {
        if (this.#settle()) this.won(value);
      },
      (error: unknown) => {
        if (this.#settle()) this.failed(error);
      },
    );
    if (budgetMs === undefined) return;
    // The timer is armed one microtask later, after the reactions of work that has settled
    // already (an `async` function that did not wait for anything): most such waits then need
    // no timer at all. The budget starts microseconds later, far below timers' resolution.
    // (A reaction of a settled promise, not queueMicrotask: Node wraps each of those in an
    // AsyncResource.)
    SETTLED.then(() => {
      if (this.#settled) return;
      this.#timer = setTimeout(() => {
        this.#settled = true;
        this.timedOut();
      }, budgetMs);
    });
  }

  /** Marks the race won or lost by the work; false when it was decided already. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    return true;
  }
}

/** {@link withinBudget}'s signal-less race: settles its promise with the outcome. */
class SettleOnce<T> extends BudgetRace<T> {
  readonly #resolve: (value: T | typeof TIMED_OUT) => void;
  readonly #reject: (error: unknown) => void;
  readonly #onTimeout: (() => void) | undefined;

  constructor(
    resolve: (value: T | typeof TIMED_OUT) => void,
    reject: (error: unknown) => void,
    onTimeout: (() => void) | undefined,
  ) {
    super();
    this.#resolve = resolve;
    this.#reject = reject;
    this.#onTimeout = onTimeout;
  }

  protected won(value: T): void {
    this.#resolve(value);
  }

  protected failed(error: unknown): void {
    this.#reject(error);
  }

  protected timedOut(): void {
    this.#onTimeout?.();
    this.#resolve(TIMED_OUT);
  }
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
