interface Subscription {
  readonly listener: () => void;
  active: boolean;
}

/**
 * The `onCancel` listeners of one job store instance, per job: each is called at most once (by
 * {@link CancelListeners.deliver}), never after its unsubscribe function ran, and forgotten when
 * delivered or released. A listener that throws is reported to `onError`; the others still run.
 * For store adapters: the store decides when a job was cancelled, this keeps the listeners.
 *
 * @example
 * const listeners = new CancelListeners();
 * const unsubscribe = listeners.add('job_1', () => controller.abort());
 * listeners.deliver('job_1'); // after the store wrote the cancel: aborts, once
 */
export class CancelListeners {
  readonly #byJob = new Map<string, Set<Subscription>>();
  readonly #onError: (error: unknown, jobId: string) => void;
  #count = 0;

  /** `onError` receives what a listener threw (default: `console.error`). */
  constructor(onError?: (error: unknown, jobId: string) => void) {
    this.#onError =
      onError ??
      ((error, jobId) => console.error(`A cancel listener of job ${jobId} threw:`, error));
  }

  /** Listeners registered and not yet delivered, released or unsubscribed. */
  get size(): number {
    return this.#count;
  }

  /** Ids of the jobs that have listeners (what a store re-reads to find cancels it missed). */
  jobIds(): string[] {
    return [...this.#byJob.keys()];
  }

  /** Registers `listener` for `jobId`; returns the function that unsubscribes it. */
  add(jobId: string, listener: () => void): () => void {
    const subscription: Subscription = { listener, active: true };
    let subscriptions = this.#byJob.get(jobId);
    if (!subscriptions) {
      subscriptions = new Set();
      this.#byJob.set(jobId, subscriptions);
    }
    subscriptions.add(subscription);
    this.#count += 1;
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      const current = this.#byJob.get(jobId);
      if (current?.delete(subscription)) {
        this.#count -= 1;
        if (current.size === 0) this.#byJob.delete(jobId);
      }
    };
  }

  /**
   * For a job already cancelled when `listener` subscribes: calls it once, in a microtask (never
   * inside `onCancel` itself), unless the returned function unsubscribes it first.
   */
  addCancelled(jobId: string, listener: () => void): () => void {
    const subscription: Subscription = { listener, active: true };
    queueMicrotask(() => this.#call(subscription, jobId));
    return () => {
      subscription.active = false;
    };
  }

  /** The job was cancelled: calls each of its listeners once, and forgets them. */
  deliver(jobId: string): void {
    for (const subscription of this.#take(jobId)) this.#call(subscription, jobId);
  }

  /** The job ended some other way (or can never be cancelled): forgets its listeners uncalled. */
  release(jobId: string): void {
    for (const subscription of this.#take(jobId)) subscription.active = false;
  }

  /** Forgets every listener uncalled (the store closes). */
  clear(): void {
    for (const jobId of this.jobIds()) this.release(jobId);
  }

  #take(jobId: string): Set<Subscription> {
    const subscriptions = this.#byJob.get(jobId);
    if (!subscriptions) return new Set();
    this.#byJob.delete(jobId);
    this.#count -= subscriptions.size;
    return subscriptions;
  }

  #call(subscription: Subscription, jobId: string): void {
    if (!subscription.active) return;
    subscription.active = false;
    try {
      subscription.listener();
    } catch (error) {
      this.#onError(error, jobId);
    }
  }
}
