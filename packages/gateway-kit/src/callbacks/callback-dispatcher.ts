import {
  type CallbackDeliveryResult,
  type CallbackDeliverySettings,
  deliverCallback,
  validateDeliverySettings,
} from './deliver-callback.ts';

/**
 * One callback for {@link CallbackDispatcher.dispatch}.
 *
 * @example
 * const delivery: CallbackDelivery = {
 *   url: callbacks.jobResultUrl,
 *   body: { job },
 *   webhookId: `job_${job.jobId}_${job.status}`,
 *   authorization: callbacks.authorization,
 * };
 */
export interface CallbackDelivery {
  readonly url: string;
  /** JSON-serialisable body. */
  readonly body: object;
  /** Stable across retries; receivers dedupe on it. */
  readonly webhookId: string;
  /** Sent verbatim as `Authorization`. */
  readonly authorization?: string | undefined;
}

/**
 * What `onDeliveryFailed` receives. `target` is the URL's origin only (scheme, host, port), since
 * paths and queries may carry tokens; `authorization` and the body are never included.
 *
 * @example
 * const onDeliveryFailed = (failure: CallbackDeliveryFailure) =>
 *   console.warn(`callback ${failure.webhookId} to ${failure.target} failed: ${failure.result.reason}`);
 */
export interface CallbackDeliveryFailure {
  readonly webhookId: string;
  readonly target: string;
  readonly result: Extract<CallbackDeliveryResult, { delivered: false }>;
}

/**
 * Settings of a {@link CallbackDispatcher}: delivery settings shared by all its callbacks, plus
 * two hooks.
 *
 * @example
 * const options: CallbackDispatcherOptions = {
 *   signingSecret: env.CALLBACK_SIGNING_SECRET,
 *   onDeliveryFailed: (failure) => logger.warn('callback failed', failure),
 *   waitUntil: (promise) => ctx.waitUntil(promise),
 * };
 */
export interface CallbackDispatcherOptions extends CallbackDeliverySettings {
  /** Called once per callback that was not delivered (after its last attempt); errors ignored. */
  readonly onDeliveryFailed?: (failure: CallbackDeliveryFailure) => void;
  /** Handed every delivery promise, e.g. a worker's `ctx.waitUntil`, to keep the runtime alive. */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}

/**
 * Sends callbacks in the background with shared settings, tracks them while they are in flight
 * and reports the ones that fail. Settings are validated when it is constructed.
 *
 * @example
 * const callbacks = new CallbackDispatcher({ signingSecret: env.CALLBACK_SIGNING_SECRET });
 * callbacks.dispatch({ url, body: { job }, webhookId: `job_${job.jobId}_${job.status}` });
 * // on shutdown: stop retrying and wait for attempts in progress
 * await callbacks.close();
 */
export class CallbackDispatcher {
  readonly #options: CallbackDispatcherOptions;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();

  /** @throws {CallbackConfigError} when a setting is invalid. */
  constructor(options: CallbackDispatcherOptions = {}) {
    validateDeliverySettings(options);
    this.#options = options;
  }

  /** Number of deliveries not finished yet. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Starts delivering `delivery`. The returned promise never rejects; ignoring it is fine.
   * After {@link close}, deliveries end at once with reason `aborted`.
   * @throws {CallbackConfigError} when `body` is not JSON-serialisable or `webhookId` is invalid.
   */
  dispatch(delivery: CallbackDelivery): Promise<CallbackDeliveryResult> {
    const { onDeliveryFailed, waitUntil, ...settings } = this.#options;
    const promise = deliverCallback({
      ...settings,
      ...delivery,
      signal: this.#closing.signal,
    }).then((result) => {
      if (!result.delivered) {
        try {
          onDeliveryFailed?.({
            webhookId: delivery.webhookId,
            target: originOf(delivery.url),
            result,
          });
        } catch {
          // A reporting hook must not turn into an unhandled rejection.
        }
      }
      return result;
    });
    this.#inFlight.add(promise);
    void promise.finally(() => this.#inFlight.delete(promise));
    waitUntil?.(promise);
    return promise;
  }

  /**
   * Resolves when every delivery in flight (including ones dispatched meanwhile) has finished.
   *
   * @example
   * await callbacks.drain();
   */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /**
   * Aborts pending attempts and waits, then resolves; later dispatches end as `aborted`.
   *
   * @example
   * process.on('SIGTERM', () => void callbacks.close());
   */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.drain();
  }
}
