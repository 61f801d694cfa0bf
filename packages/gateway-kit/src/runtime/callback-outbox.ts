/**
 * One pending callback as an outbox stores it: everything needed to send it again from any
 * instance. `payload` is the serialised JSON body, identical on every attempt.
 *
 * @example
 * const entry: OutboxEntry = {
 *   webhookId: 'job_job_1_completed',
 *   url: 'https://hooks.example.com/jobs',
 *   payload: '{"job":{"jobId":"job_1","status":"completed"}}',
 *   attempts: 0,
 * };
 */
export interface OutboxEntry {
  /** Stable across attempts (`webhook-id`); also the entry's key, so it is enqueued at most once. */
  readonly webhookId: string;
  /** Where the callback is `POST`ed. */
  readonly url: string;
  /** The serialised JSON body. */
  readonly payload: string;
  /** Sent verbatim as `Authorization`. */
  readonly authorization?: string | undefined;
  /**
   * The principal whose callback it is (the job's or approval's owner): the entry counts against
   * that principal's share, and due entries are claimed fairly across principals. Entries without
   * one share a single anonymous share (`''`).
   */
  readonly principal?: string | undefined;
  /** Attempts made so far. */
  readonly attempts: number;
}

/**
 * An entry this instance claimed: it may deliver it until `leaseMs` after the claim; `claim`
 * proves it when completing or rescheduling (a claim that lapsed and was taken over is ignored).
 *
 * @example
 * for (const entry of await outbox.claimDue(20)) await deliver(entry, entry.claim);
 */
export interface ClaimedOutboxEntry extends OutboxEntry {
  /** Opaque token of this claim, for `complete` and `reschedule`. */
  readonly claim: string;
  /**
   * Set when the entry outlived the store's retention: the store has removed it already, and the
   * dispatcher reports it (reason `expired`) instead of attempting it. Optional for stores that
   * drop expired entries silently.
   */
  readonly expired?: boolean | undefined;
}

/**
 * A durable store of pending callbacks shared by every gateway instance (e.g. `RedisJobStore`'s
 * `callbackOutbox`), so that a callback survives the instance that queued it: entries wait, sorted
 * by their next attempt time, until an instance claims them with a lease; a claim that is neither
 * completed nor rescheduled within `leaseMs` (the instance died) becomes due again. Delivery is
 * therefore at least once, with the same `webhook-id` on every attempt.
 *
 * The `CallbackDispatcher` drives it: it enqueues (already claimed) before the first attempt,
 * polls every `pollIntervalMs` for due entries, and completes or reschedules each one after an
 * attempt. Without an outbox, delivery stays in process (see docs/callbacks.md).
 *
 * @example
 * const gateway = createGateway({ ...options, jobStore: redisJobStore }); // uses its outbox
 * // or explicitly:
 * const callbacks: CallbackDispatcherOptions = { outbox: redisJobStore.callbackOutbox };
 */
export interface CallbackOutbox {
  /**
   * How long a claim lasts, in ms. The dispatcher keeps each outbox attempt within half of it
   * (its `attemptTimeoutMs` is shortened to `leaseMs / 2` when longer, with a warning from
   * `createGateway`), and waits for a slot at most the rest of that half.
   */
  readonly leaseMs: number;
  /** How often a dispatcher looks for due entries, in ms. */
  readonly pollIntervalMs: number;
  /**
   * Stores `entry`, claimed by the caller for `leaseMs`. Resolves with the claim, `exists`
   * when an entry with this `webhookId` is pending already, or `full` when the outbox is at its
   * capacity or `entry.principal`'s share (items or bytes) is used up: one principal's overflow
   * never takes another principal's share. Rejects when the store cannot be reached.
   */
  enqueue(entry: Omit<OutboxEntry, 'attempts'>): Promise<
    | {
        /** Opaque token of the caller's claim, for `complete` and `reschedule`. */
        readonly claim: string;
      }
    | 'exists'
    | 'full'
  >;
  /**
   * Claims up to `limit` entries whose next attempt is due, each for `leaseMs`, fairly across
   * principals: one due entry per principal in turn (principals served least recently first), so
   * one principal's backlog never fills a batch while another has due entries. Entries past the
   * store's retention come back once with `expired: true` (already removed).
   */
  claimDue(limit: number): Promise<ClaimedOutboxEntry[]>;
  /** Removes a delivered (or abandoned) entry, if `claim` still holds it. */
  complete(webhookId: string, claim: string): Promise<void>;
  /**
   * Releases the claim (if it still holds) and makes the entry due in `delayMs` (by the store's
   * clock), with `attempts` attempts made in all (unchanged when no request was sent, e.g. while
   * the destination's circuit is open).
   */
  reschedule(webhookId: string, claim: string, attempts: number, delayMs: number): Promise<void>;
}
