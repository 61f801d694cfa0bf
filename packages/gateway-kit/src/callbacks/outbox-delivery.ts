import { utf8Length } from '../http/json-size.ts';
import type { CallbackOutbox, ClaimedOutboxEntry } from '../runtime/callback-outbox.ts';
import { originOf } from '../runtime/origin-of.ts';
import { unrefTimer } from '../runtime/timers.ts';
import {
  backoffDelay,
  type CallbackDeliveryResult,
  type CallbackDeliverySettings,
  type PreparedDelivery,
  precheckDelivery,
  prepareDelivery,
  runDelivery,
} from './deliver-callback.ts';
import type { DeliveryLimiter } from './delivery-limiter.ts';

/** Entries claimed per poll at most (also bounded by free attempt slots). */
const POLL_BATCH = 32;

/** A callback read back from the outbox (the shape of the dispatcher's `CallbackDelivery`). */
interface OutboxCallback {
  readonly url: string;
  readonly body: object;
  readonly webhookId: string;
  readonly authorization?: string | undefined;
}

/** What {@link OutboxDelivery} shares with its dispatcher. Internal. */
export interface OutboxDeliveryContext {
  readonly outbox: CallbackOutbox;
  readonly limiter: DeliveryLimiter;
  /** The dispatcher's settings for one delivery (its `wrapFetch` applied). */
  readonly settings: (delivery: OutboxCallback) => CallbackDeliverySettings;
  readonly signal: AbortSignal;
  readonly maxConcurrentAttempts: number;
  /** Reports a final result (the dispatcher calls `onDeliveryFailed` for failures). */
  readonly finish: (webhookId: string, url: string, result: CallbackDeliveryResult) => void;
  /** Tracks background work (in flight, `waitUntil`). */
  readonly track: (work: Promise<unknown>) => void;
}

const queued = (attempts: number): CallbackDeliveryResult => ({
  delivered: false,
  attempts,
  reason: 'queued',
});

/**
 * Durable delivery through a {@link CallbackOutbox}: each attempt is one request; between attempts
 * the entry waits in the outbox (not in this process), so any instance may make the next one.
 * Internal: `CallbackDispatcher` uses it when given an `outbox`.
 *
 * @example
 * const durable = new OutboxDelivery(context);
 * durable.start();
 * const result = await durable.dispatch(prepared); // delivered, final failure, or `queued`
 */
export class OutboxDelivery {
  readonly #c: OutboxDeliveryContext;
  #timer: ReturnType<typeof setInterval> | undefined;
  #polling = false;

  constructor(context: OutboxDeliveryContext) {
    this.#c = context;
  }

  /** Polls for due entries now and every `pollIntervalMs` (the timer does not keep a process alive). */
  start(): void {
    if (this.#timer !== undefined || this.#c.signal.aborted) return;
    this.#timer = setInterval(() => void this.poll(), this.#c.outbox.pollIntervalMs);
    unrefTimer(this.#timer);
    void this.poll();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Stores the callback (claimed by this instance), then makes its first attempt. When the outbox
   * cannot be reached, it is delivered in process instead (`fallback`), as without an outbox.
   */
  async dispatch(
    p: PreparedDelivery,
    fallback: () => Promise<CallbackDeliveryResult>,
    handedOver?: () => void,
  ): Promise<CallbackDeliveryResult> {
    // Refusals that need no request (bad URL, bad header) end at once, without the outbox.
    const refused = precheckDelivery(p);
    if (!(refused instanceof URL)) {
      handedOver?.();
      return refused;
    }
    let claim: string;
    try {
      const entry = { webhookId: p.webhookId, url: p.url, payload: p.payload };
      const stored = await this.#c.outbox.enqueue(
        p.authorization === undefined ? entry : { ...entry, authorization: p.authorization },
      );
      // Stored (or pending already), or refused for good: it no longer depends on the caller.
      handedOver?.();
      if (stored === 'exists') return queued(0);
      if (stored === 'full') return { delivered: false, attempts: 0, reason: 'overflow' };
      claim = stored.claim;
    } catch {
      return fallback();
    }
    return this.#attempt(p, claim, 0);
  }

  /** Claims due entries (as many as there are free attempt slots, at most a batch) and tries each. */
  async poll(): Promise<void> {
    if (this.#polling || this.#c.signal.aborted) return;
    this.#polling = true;
    try {
      const free = this.#c.maxConcurrentAttempts - this.#c.limiter.activeAttempts;
      const limit = Math.min(POLL_BATCH, free);
      if (limit <= 0) return;
      let entries: ClaimedOutboxEntry[];
      try {
        entries = await this.#c.outbox.claimDue(limit);
      } catch {
        return; // Unreachable: the store reports its outage; the next poll tries again.
      }
      for (const entry of entries) {
        const work = this.#fromEntry(entry);
        this.#c.track(work);
      }
    } finally {
      this.#polling = false;
    }
  }

  async #fromEntry(entry: ClaimedOutboxEntry): Promise<void> {
    let p: PreparedDelivery;
    try {
      const delivery = {
        url: entry.url,
        body: JSON.parse(entry.payload) as object,
        webhookId: entry.webhookId,
        authorization: entry.authorization,
      };
      // Sent as stored, byte for byte: the payload is not serialised again.
      const prepared = prepareDelivery({
        ...this.#c.settings(delivery),
        ...delivery,
        body: {},
        signal: this.#c.signal,
      });
      p = { ...prepared, payload: entry.payload };
    } catch {
      // Not deliverable by anyone (e.g. a corrupted id): drop it rather than retry forever.
      await this.#settle(() => this.#c.outbox.complete(entry.webhookId, entry.claim));
      return;
    }
    const result = await this.#attempt(p, entry.claim, entry.attempts);
    if (!(result.delivered === false && result.reason === 'queued'))
      this.#c.finish(entry.webhookId, entry.url, result);
  }

  /** One attempt through the dispatcher's limits; then completes or reschedules the entry. */
  async #attempt(
    p: PreparedDelivery,
    claim: string,
    before: number,
  ): Promise<CallbackDeliveryResult> {
    const { outbox, limiter } = this.#c;
    const admission = limiter.admit(utf8Length(p.payload));
    if (!admission) {
      // Too much in flight here: leave it to a later poll (of any instance).
      const delay = backoffDelay(1, p);
      await this.#settle(() => outbox.reschedule(p.webhookId, claim, before, delay));
      return queued(before);
    }
    // Waiting for the circuit must end well inside the lease, or another instance takes over.
    const gate = limiter.gate(
      originOf(p.url),
      Math.max(0, outbox.leaseMs / 2 - p.attemptTimeoutMs),
    );
    let result: CallbackDeliveryResult;
    let retryAfterMs: number | undefined;
    try {
      result = await runDelivery({ ...p, maxAttempts: 1 }, gate, (ms) => {
        retryAfterMs = ms;
      });
    } finally {
      admission.release();
    }
    const attempts = before + Math.max(1, result.attempts);
    if (result.delivered) {
      await this.#settle(() => outbox.complete(p.webhookId, claim));
      return { ...result, attempts };
    }
    if (result.reason === 'aborted') {
      // Shutting down: hand it back at once to whichever instance polls next.
      await this.#settle(() => outbox.reschedule(p.webhookId, claim, before, 0));
      return queued(before);
    }
    const retryable = result.reason === 'exhausted' || result.reason === 'circuit_open';
    if (retryable && attempts < p.maxAttempts) {
      // The receiver's Retry-After wins over the backoff, as with in-process retries.
      const delay = Math.min(p.maxDelayMs, retryAfterMs ?? backoffDelay(attempts, p));
      await this.#settle(() => outbox.reschedule(p.webhookId, claim, attempts, delay));
      return queued(attempts);
    }
    await this.#settle(() => outbox.complete(p.webhookId, claim));
    return { ...result, attempts };
  }

  /** Store writes after an attempt: if one fails, the claim lapses and the entry is tried again. */
  async #settle(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch {
      // At least once: a lapsed claim is due again after `leaseMs`.
    }
  }
}
