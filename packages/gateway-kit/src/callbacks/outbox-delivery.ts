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
import type { DeliveryLimiter, DeliveryTarget } from './delivery-limiter.ts';

/** Entries claimed per poll at most (also bounded by free attempt slots). */
const POLL_BATCH = 32;

/** A callback read back from the outbox (the shape of the dispatcher's `CallbackDelivery`). */
interface OutboxCallback {
  readonly url: string;
  readonly body: object;
  readonly webhookId: string;
  readonly authorization?: string | undefined;
  readonly principal?: string | undefined;
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
  readonly finish: (
    webhookId: string,
    target: DeliveryTarget,
    result: CallbackDeliveryResult,
  ) => void;
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
    principal: string | undefined,
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
      const stored = await this.#c.outbox.enqueue({
        webhookId: p.webhookId,
        url: p.url,
        payload: p.payload,
        ...(p.authorization === undefined ? {} : { authorization: p.authorization }),
        ...(principal === undefined ? {} : { principal }),
      });
      // Stored (or pending already), or refused for good: it no longer depends on the caller.
      handedOver?.();
      if (stored === 'exists') return queued(0);
      if (stored === 'full') return { delivered: false, attempts: 0, reason: 'overflow' };
      claim = stored.claim;
    } catch {
      return fallback();
    }
    return this.#attempt(p, principal, claim, 0);
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
    const target = { origin: originOf(entry.url), principal: entry.principal };
    if (entry.expired) {
      // Past the store's retention (already removed there): reported once, not attempted.
      this.#c.finish(entry.webhookId, target, {
        delivered: false,
        attempts: entry.attempts,
        reason: 'expired',
      });
      return;
    }
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
    const result = await this.#attempt(p, entry.principal, entry.claim, entry.attempts);
    if (!(result.delivered === false && result.reason === 'queued'))
      this.#c.finish(entry.webhookId, target, result);
  }

  /**
   * One attempt through the dispatcher's limits; then completes or reschedules the entry. The
   * claim lasts `leaseMs`: the attempt gets at most half of it, waiting for a slot at most the rest
   * of that half, and waits for nothing else. An open circuit, a full share or no free slot puts
   * the entry back in the outbox without counting an attempt (no request was sent).
   */
  async #attempt(
    p: PreparedDelivery,
    principal: string | undefined,
    claim: string,
    before: number,
  ): Promise<CallbackDeliveryResult> {
    const { outbox, limiter } = this.#c;
    const putBack = async (delayMs: number): Promise<CallbackDeliveryResult> => {
      await this.#settle(() => outbox.reschedule(p.webhookId, claim, before, delayMs));
      return queued(before);
    };
    const refused = precheckDelivery(p);
    if (!(refused instanceof URL)) {
      await this.#settle(() => outbox.complete(p.webhookId, claim));
      return refused;
    }
    const target: DeliveryTarget = { origin: refused.origin, principal };
    const admission = limiter.admit(utf8Length(p.payload), principal);
    // Too much in flight here (in all, or for this principal): leave it to a later poll.
    if (!admission) return putBack(backoffDelay(1, p));
    const budget = attemptBudget(outbox.leaseMs, p.attemptTimeoutMs);
    const entered = await limiter
      .gate(target, { maxCircuitWaitMs: 0, maxSlotWaitMs: budget.slotWaitMs })
      .enter(p.signal);
    if (typeof entered === 'string') {
      admission.release();
      // Shutting down: hand it back at once to whichever instance polls next.
      if (entered === 'aborted') return putBack(0);
      if (entered === 'busy') return putBack(backoffDelay(1, p));
      // Open circuit: due again when it may let an attempt through (spread over a base delay).
      const wait = limiter.circuitDelay(target) ?? 0;
      return putBack(Math.min(p.maxDelayMs, wait) + backoffDelay(1, p));
    }
    const ticket = entered;
    let result: CallbackDeliveryResult;
    let retryAfterMs: number | undefined;
    try {
      result = await runDelivery(
        { ...p, maxAttempts: 1, attemptTimeoutMs: budget.attemptTimeoutMs },
        { enter: async () => ticket },
        (ms) => {
          retryAfterMs = ms;
        },
      );
    } finally {
      // A no-op when the attempt ran (it left the gate itself).
      ticket.leave('neutral');
      admission.release();
    }
    if (result.delivered) {
      await this.#settle(() => outbox.complete(p.webhookId, claim));
      return { ...result, attempts: before + result.attempts };
    }
    if (result.reason === 'aborted') return putBack(0);
    const attempts = before + result.attempts;
    if (result.reason === 'exhausted' && attempts < p.maxAttempts) {
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

/**
 * How an outbox attempt fits in its claim of `leaseMs`: the attempt itself gets at most half of
 * it (`attemptTimeoutMs` is shortened when longer), waiting for a slot the rest of that half; the
 * other half is left for the store write that completes or reschedules the entry.
 *
 * @example
 * attemptBudget(30_000, 10_000); // { attemptTimeoutMs: 10_000, slotWaitMs: 5_000 }
 */
export function attemptBudget(
  leaseMs: number,
  attemptTimeoutMs: number,
): { readonly attemptTimeoutMs: number; readonly slotWaitMs: number } {
  const half = Math.max(1, Math.floor(leaseMs / 2));
  const attempt = Math.min(attemptTimeoutMs, half);
  return { attemptTimeoutMs: attempt, slotWaitMs: half - attempt };
}
