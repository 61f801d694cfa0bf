import { utf8Length } from '../http/json-size.ts';
import type { CallbackOutbox } from '../runtime/callback-outbox.ts';
import { originOf } from '../runtime/origin-of.ts';
import { abortableSleep } from '../runtime/timers.ts';
import type { ResolveHost } from './callback-url-guard.ts';
import {
  CALLBACK_DELIVERY_DEFAULTS,
  type CallbackDeliveryResult,
  type CallbackDeliverySettings,
  type PreparedDelivery,
  prepareDelivery,
  runDelivery,
  validateDeliverySettings,
} from './deliver-callback.ts';
import {
  CALLBACK_LIMIT_DEFAULTS,
  type CallbackLimits,
  DeliveryLimiter,
  type DeliveryTarget,
} from './delivery-limiter.ts';
import { OutboxDelivery } from './outbox-delivery.ts';

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
  /** Where to `POST` the callback; checked by the SSRF guard first. */
  readonly url: string;
  /** JSON-serialisable body. */
  readonly body: object;
  /** Stable across retries; receivers dedupe on it. */
  readonly webhookId: string;
  /** Sent verbatim as `Authorization`. */
  readonly authorization?: string | undefined;
  /**
   * Whose callback it is (the gateway passes the job's or approval's owner, `principal.id`): it
   * counts against that principal's share of pending callbacks, and its destination (circuit,
   * slots) is the URL's origin as this principal calls it back. Without it, only the global
   * limits apply.
   */
  readonly principal?: string | undefined;
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
  /** The delivery's `webhookId`. */
  readonly webhookId: string;
  /** The delivery URL's origin (scheme, host and port). */
  readonly target: string;
  /** The delivery's `principal`, when it named one. */
  readonly principal?: string | undefined;
  /** How the delivery ended: `reason`, `attempts` and what the receiver last said. */
  readonly result: Extract<CallbackDeliveryResult, { delivered: false }>;
}

/**
 * Settings of a {@link CallbackDispatcher}: delivery settings shared by all its callbacks, its
 * limits (concurrency, pending deliveries, circuit breaker; see docs/callbacks.md, "Limits"),
 * plus two hooks.
 *
 * @example
 * const options: CallbackDispatcherOptions = {
 *   signingSecret: env.CALLBACK_SIGNING_SECRET,
 *   maxPendingDeliveries: 5_000,
 *   onDeliveryFailed: (failure) => logger.warn('callback failed', failure),
 *   waitUntil: (promise) => ctx.waitUntil(promise),
 * };
 */
export interface CallbackDispatcherOptions extends CallbackDeliverySettings, CallbackLimits {
  /**
   * Called once per callback that was not delivered (after its last attempt, or at once when it
   * overflowed the pending limits); errors ignored.
   */
  readonly onDeliveryFailed?: (failure: CallbackDeliveryFailure) => void;
  /** Handed every delivery promise, e.g. a worker's `ctx.waitUntil`, to keep the runtime alive. */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Wraps the `fetch` of each delivery (called once per delivery, then once per attempt), e.g. to
   * trace every attempt as a client span: the gateway's `tracer` option uses it.
   */
  readonly wrapFetch?: (
    fetch: typeof globalThis.fetch,
    delivery: CallbackDelivery,
  ) => typeof globalThis.fetch;
  /**
   * Durable delivery: pending callbacks live in this store (e.g. `RedisJobStore`'s
   * `callbackOutbox`, which `createGateway` uses by default) instead of this process. Each is
   * stored before its first attempt; retries are made by whichever instance polls first, at least
   * once, with the same `webhook-id`. Without it, delivery and retries stay in process.
   */
  readonly outbox?: CallbackOutbox | undefined;
}

const OVERFLOW: CallbackDeliveryResult = /* @__PURE__ */ Object.freeze({
  delivered: false,
  attempts: 0,
  reason: 'overflow',
});

function unrefSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, { unref: true });
}

const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

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
  #settings: CallbackDeliverySettings;
  readonly #onDeliveryFailed: CallbackDispatcherOptions['onDeliveryFailed'];
  readonly #waitUntil: CallbackDispatcherOptions['waitUntil'];
  readonly #wrapFetch: CallbackDispatcherOptions['wrapFetch'];
  readonly #limiter: DeliveryLimiter;
  readonly #maxCircuitWaitMs: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();
  readonly #durable: OutboxDelivery | undefined;

  /** @throws {CallbackConfigError} when a setting or limit is invalid. */
  constructor(options: CallbackDispatcherOptions = {}) {
    validateDeliverySettings(options);
    const {
      onDeliveryFailed,
      waitUntil,
      wrapFetch,
      maxConcurrentAttempts,
      maxConcurrentPerDestination,
      maxConcurrentAttemptsPerPrincipal,
      maxPendingDeliveries,
      maxPendingBytes,
      maxPendingPerPrincipal,
      maxPendingBytesPerPrincipal,
      circuitFailureThreshold,
      circuitCooldownMs,
      circuitMaxDestinations,
      outbox,
      ...settings
    } = options;
    // Background waits must not keep a process alive on their own (drain() does, while asked).
    const sleep = settings.sleep ?? unrefSleep;
    this.#settings = { ...settings, sleep };
    this.#onDeliveryFailed = onDeliveryFailed;
    this.#waitUntil = waitUntil;
    this.#wrapFetch = wrapFetch;
    this.#maxCircuitWaitMs = settings.maxDelayMs ?? CALLBACK_DELIVERY_DEFAULTS.maxDelayMs;
    this.#limiter = new DeliveryLimiter(options, { now: settings.now ?? Date.now, sleep });
    if (outbox) {
      this.#durable = new OutboxDelivery({
        outbox,
        limiter: this.#limiter,
        settings: (delivery) => this.#settingsFor(delivery),
        signal: this.#closing.signal,
        maxConcurrentAttempts:
          maxConcurrentAttempts ?? CALLBACK_LIMIT_DEFAULTS.maxConcurrentAttempts,
        finish: (webhookId, target, result) => this.#finish(webhookId, target, result),
        track: (work) => this.#track(work),
      });
      this.#durable.start();
    }
  }

  /**
   * Fills in `fetch` and `resolveHost` where the options gave none: how a runtime adapter supplies
   * its own (the Node adapter's connections pinned to checked addresses). Settings given
   * explicitly always win. Applies to deliveries dispatched afterwards.
   *
   * @example
   * dispatcher.useRuntimeDefaults({ fetch: createPinnedFetch({ urlPolicy }) });
   */
  useRuntimeDefaults(defaults: {
    readonly fetch?: typeof fetch;
    readonly resolveHost?: ResolveHost;
  }): void {
    const settings = { ...this.#settings };
    if (settings.fetch === undefined && defaults.fetch) settings.fetch = defaults.fetch;
    if (settings.resolveHost === undefined && defaults.resolveHost)
      settings.resolveHost = defaults.resolveHost;
    this.#settings = settings;
  }

  /** Number of deliveries not finished yet. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Attempts (open requests) in flight now; at most `maxConcurrentAttempts`. */
  get activeAttempts(): number {
    return this.#limiter.activeAttempts;
  }

  /**
   * Starts delivering `delivery`. The returned promise never rejects; ignoring it is fine.
   * When `maxPendingDeliveries` or `maxPendingBytes` would be exceeded, it ends at once as
   * `overflow` (reported like any failure). After {@link close}, deliveries end at once with
   * reason `aborted`.
   *
   * `handedOver`, when given, is called once the delivery no longer needs its caller: stored in
   * the outbox (or found pending there already), started in process, or refused for good. It is
   * not called for a delivery that ends `aborted` because the dispatcher closed.
   * @throws {CallbackConfigError} when `body` is not JSON-serialisable or `webhookId` is invalid.
   */
  dispatch(delivery: CallbackDelivery, handedOver?: () => void): Promise<CallbackDeliveryResult> {
    const signal = this.#closing.signal;
    const { principal, ...options } = delivery;
    const prepared = prepareDelivery({ ...this.#settingsFor(delivery), ...options, signal });
    const target: DeliveryTarget = { origin: originOf(delivery.url), principal };
    const inProcess = (): Promise<CallbackDeliveryResult> => {
      if (!signal.aborted) handedOver?.();
      return this.#deliver(prepared, target);
    };
    const delivering =
      this.#durable && !signal.aborted
        ? this.#durable.dispatch(prepared, principal, inProcess, handedOver)
        : inProcess();
    const promise = delivering.then((result) => {
      this.#finish(delivery.webhookId, target, result);
      return result;
    });
    this.#track(promise);
    return promise;
  }

  /** The shared settings, with `fetch` wrapped for this delivery when `wrapFetch` is set. */
  #settingsFor(delivery: CallbackDelivery): CallbackDeliverySettings {
    const wrap = this.#wrapFetch;
    return wrap
      ? { ...this.#settings, fetch: wrap(this.#settings.fetch ?? globalFetch, delivery) }
      : this.#settings;
  }

  /** Reports a result that is final (not `queued`) and not a success to `onDeliveryFailed`. */
  #finish(webhookId: string, target: DeliveryTarget, result: CallbackDeliveryResult): void {
    if (result.delivered || result.reason === 'queued') return;
    try {
      this.#onDeliveryFailed?.({
        webhookId,
        target: target.origin,
        ...(target.principal === undefined ? {} : { principal: target.principal }),
        result,
      });
    } catch {
      // A reporting hook must not turn into an unhandled rejection.
    }
  }

  #track(promise: Promise<unknown>): void {
    this.#inFlight.add(promise);
    void promise.finally(() => this.#inFlight.delete(promise));
    this.#waitUntil?.(promise);
  }

  #deliver(prepared: PreparedDelivery, target: DeliveryTarget): Promise<CallbackDeliveryResult> {
    // After close() it ends at once as `aborted`, so it takes no capacity.
    if (this.#closing.signal.aborted) return runDelivery(prepared);
    const admission = this.#limiter.admit(utf8Length(prepared.payload), target.principal);
    if (!admission) return Promise.resolve(OVERFLOW);
    const gate = this.#limiter.gate(target, { maxCircuitWaitMs: this.#maxCircuitWaitMs });
    return runDelivery(prepared, gate).finally(() => admission.release());
  }

  /**
   * Resolves when every delivery in flight (including ones dispatched meanwhile) has finished.
   *
   * @example
   * await callbacks.drain();
   */
  async drain(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    // Retry waits are unref'd; this timer keeps the process alive until the deliveries end.
    const keepAlive = setInterval(() => undefined, 60_000);
    try {
      while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Aborts pending attempts and waits, then resolves; later dispatches end as `aborted`.
   *
   * @example
   * process.on('SIGTERM', () => void callbacks.close());
   */
  async close(): Promise<void> {
    this.#closing.abort();
    this.#durable?.stop();
    await this.drain();
  }
}
