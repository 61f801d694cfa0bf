import { randomUUID } from 'node:crypto';
import {
  type CallbackOutbox,
  type ClaimedOutboxEntry,
  type OutboxEntry,
  refusalFor,
} from '@svc/gateway-kit/store';
import {
  CLAIM_CALLBACKS,
  COMPLETE_CALLBACK,
  ENQUEUE_CALLBACK,
  RESCHEDULE_CALLBACK,
} from './callback-scripts.ts';
import { bucketShare, type KeyLayout } from './key-layout.ts';
import type { RedisConnection } from './redis-connection.ts';

/** Rounds of one `claimDue` at most (each round serves every eligible principal once). */
const MAX_CLAIM_ROUNDS = 8;

/**
 * Each principal's share of the Redis callback outbox (options of `RedisJobStore`): one principal
 * whose callbacks cannot be delivered fills its own share, never another principal's.
 *
 * @example
 * const store = new RedisJobStore({ url, maxPendingCallbacksPerPrincipal: 5_000 });
 */
export interface RedisCallbackShareOptions {
  /**
   * Callbacks one principal may have pending in the outbox, across all instances; beyond it that
   * principal's callback ends as `overflow` (reported through `onDeliveryFailed`). A positive
   * integer. Default 1 000: below a bucket's share of `maxPendingCallbacks` (1 562 with the
   * defaults), so one principal cannot fill its bucket alone.
   */
  readonly maxPendingCallbacksPerPrincipal?: number;
  /**
   * Bytes (URL, body and `Authorization` value) of the callbacks one principal may have pending;
   * beyond it, `overflow` too. A positive integer. Default 32 MiB.
   */
  readonly maxPendingCallbackBytesPerPrincipal?: number;
}

/**
 * The validated shares of {@link RedisCallbackShareOptions}, with their defaults.
 *
 * @example
 * callbackShares({}); // { maxEntriesPerPrincipal: 1_000, maxBytesPerPrincipal: 33_554_432 }
 * @throws {GatewayConfigError} when a share is not a positive integer.
 */
export function callbackShares(options: RedisCallbackShareOptions): {
  readonly maxEntriesPerPrincipal: number;
  readonly maxBytesPerPrincipal: number;
} {
  const share = (name: keyof RedisCallbackShareOptions, fallback: number): number => {
    const value = options[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value < 1)
      refusalFor('new RedisJobStore')(name, value, 'expected a positive integer.');
    return value;
  };
  return {
    maxEntriesPerPrincipal: share('maxPendingCallbacksPerPrincipal', 1_000),
    maxBytesPerPrincipal: share('maxPendingCallbackBytesPerPrincipal', 32 * 1024 * 1024),
  };
}

/** How a {@link RedisCallbackOutbox} keeps its entries (set by `RedisJobStore`). */
export interface RedisCallbackOutboxSettings {
  /** The store's key layout: a principal's entries live in the principal's bucket. */
  readonly keys: KeyLayout;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  /** Entries kept at most, all principals together, split into equal per-bucket shares; beyond a bucket's share `enqueue` answers `full`. */
  readonly maxEntries: number;
  /** Entries one principal may have pending; beyond it, `full` for that principal. */
  readonly maxEntriesPerPrincipal: number;
  /** Bytes (URL, payload, authorization) one principal may have pending. */
  readonly maxBytesPerPrincipal: number;
  /** How long an entry may wait at most, in ms; then it is removed and reported as `expired`. */
  readonly ttlMs: number;
  /**
   * Resolves once a write to the key reached the replicas the store asks for (`waitForReplicas`):
   * `false` when the primary gave no answer (it may have died with the write), else `true`.
   */
  readonly replicated?: ((key: string) => Promise<boolean>) | undefined;
}

/**
 * The `CallbackOutbox` of a `RedisJobStore` (its `callbackOutbox`): pending callbacks in Redis,
 * shared by every instance with the same prefix, counted per principal (items and bytes) and
 * claimed fairly across principals. A principal's entries, queue and counters live in the bucket
 * of the principal, so its share check and the write are one Lua script; claims serve the
 * principals of all buckets least recently served first. Times are Redis' clock.
 *
 * @example
 * const outbox = new RedisJobStore({ url }).callbackOutbox;
 * const claimed = await outbox.claimDue(10);
 */
export class RedisCallbackOutbox implements CallbackOutbox {
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  readonly #redis: RedisConnection;
  readonly #settings: RedisCallbackOutboxSettings;
  readonly #keys: KeyLayout;

  /**
   * Made by the job store, on its own connection: use `store.callbackOutbox`.
   * @hidden
   */
  constructor(redis: RedisConnection, settings: RedisCallbackOutboxSettings) {
    this.#redis = redis;
    this.#settings = settings;
    this.#keys = settings.keys;
    this.leaseMs = settings.leaseMs;
    this.pollIntervalMs = settings.pollIntervalMs;
  }

  async enqueue(
    entry: Omit<OutboxEntry, 'attempts'>,
  ): Promise<{ readonly claim: string } | 'exists' | 'full'> {
    const bucket = this.#keys.bucketOf(entry.principal ?? '');
    // The claim names the bucket, so complete and reschedule find the entry from it.
    const claim = `${bucket}.${randomUUID()}`;
    const reply = await this.#store(bucket, entry, claim);
    if (reply !== 'ok') return reply as 'exists' | 'full';
    await this.#settings.replicated?.(`${this.#keys.outbox(bucket)}all`);
    return { claim };
  }

  /**
   * The enqueue script. When it fails, the caller delivers the callback in process, yet the
   * script may still have run (a reply lost to a deadline or a failover): the entry, claimed by
   * this instance, would be delivered a second time once its claim lapses. So a failed enqueue is
   * retracted in the background (deleted if this claim still holds), retried until Redis answers,
   * for `leaseMs` at most.
   */
  async #store(
    bucket: number,
    entry: Omit<OutboxEntry, 'attempts'>,
    claim: string,
  ): Promise<unknown> {
    try {
      return await this.#redis.script(ENQUEUE_CALLBACK, this.#entryKeys(bucket, entry.webhookId), [
        this.#keys.outbox(bucket),
        entry.webhookId,
        claim,
        String(this.leaseMs),
        String(bucketShare(this.#settings.maxEntries, this.#keys.buckets, bucket)),
        String(this.#settings.ttlMs),
        entry.url,
        entry.payload,
        entry.authorization === undefined ? '0' : '1',
        entry.authorization ?? '',
        entry.principal ?? '',
        String(this.#settings.maxEntriesPerPrincipal),
        String(this.#settings.maxBytesPerPrincipal),
      ]);
    } catch (error) {
      this.#retryComplete(entry.webhookId, claim, this.leaseMs);
      throw error;
    }
  }

  /**
   * Claims up to `limit` due entries, one per principal in turn, least recently served first
   * across all buckets: each round reads the head of every bucket's principal queue (pipelined),
   * picks the principals eligible earliest, and claims one entry of each in its bucket's script.
   */
  async claimDue(limit: number): Promise<ClaimedOutboxEntry[]> {
    const wanted = Math.max(0, Math.floor(limit));
    const claimed: ClaimedOutboxEntry[] = [];
    for (let round = 0; round < MAX_CLAIM_ROUNDS && claimed.length < wanted; round++) {
      const remaining = wanted - claimed.length;
      // A bucket whose primary is down (a failover) is skipped; the others are still served.
      const heads = await this.#redis.call(async (client) => {
        const settled = await Promise.allSettled(
          Array.from({ length: this.#keys.buckets }, (_, bucket) =>
            client.zRangeWithScores(`${this.#keys.outbox(bucket)}ready`, 0, remaining - 1),
          ),
        );
        // Every bucket failing is an outage (StoreUnavailableError from `call`).
        const failed = settled.find((head) => head.status === 'rejected');
        if (failed && settled.every((head) => head.status === 'rejected')) throw failed.reason;
        return settled;
      });
      const candidates = heads
        .flatMap((head, bucket) =>
          head.status === 'fulfilled'
            ? head.value.map(({ value, score }) => ({ bucket, value, score }))
            : [],
        )
        .sort((x, y) => x.score - y.score || (x.value < y.value ? -1 : x.value > y.value ? 1 : 0))
        .slice(0, remaining);
      if (candidates.length === 0) break;
      // One entry per chosen principal. Fewer principals than entries wanted: these are all of
      // them, and the rest is split over their buckets (each claims round its principals again).
      const perBucket = new Map<number, number>();
      for (const { bucket } of candidates) perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + 1);
      let spare = remaining - candidates.length;
      const share = Math.floor(spare / perBucket.size);
      for (const [bucket, count] of perBucket) {
        const extra = Math.min(spare, share + (spare - share * perBucket.size > 0 ? 1 : 0));
        perBucket.set(bucket, count + extra);
        spare -= extra;
      }
      const results = await Promise.all(
        [...perBucket].map(async ([bucket, count]) => ({
          count,
          rows: await this.#claimIn(bucket, count).catch(() => []),
        })),
      );
      // In turns: every principal's first entry (least recently served first), then the seconds…
      const rank = new Map(candidates.map(({ value }, index) => [value, index]));
      const turn = new Map<string, number>();
      const got = results
        .flatMap(({ rows }) => rows)
        .map((entry) => {
          const principal = entry.principal ?? '';
          const nth = turn.get(principal) ?? 0;
          turn.set(principal, nth + 1);
          return { entry, key: nth * (remaining + 1) + (rank.get(principal) ?? remaining) };
        })
        .sort((x, y) => x.key - y.key)
        .map(({ entry }) => entry);
      claimed.push(...got);
      // Another round only while some bucket may hold more due entries than it was asked for.
      if (got.length === 0 || !results.some(({ count, rows }) => rows.length >= count)) break;
    }
    return claimed;
  }

  async #claimIn(bucket: number, limit: number): Promise<ClaimedOutboxEntry[]> {
    const claim = `${bucket}.${randomUUID()}`;
    const base = this.#keys.outbox(bucket);
    const rows = (await this.#redis.script(CLAIM_CALLBACKS, this.#shared(bucket), [
      base,
      claim,
      String(this.leaseMs),
      String(limit),
    ])) as [string, string, string, string, string | null, string, string][];
    // A claim lost in a failover would let another instance deliver the entry a second time. When
    // the primary gave no answer to the WAIT (it may have died with the claim), the entries are
    // left to their claim: due again after `leaseMs` wherever the claim survived, at once where it
    // was lost; either way one instance delivers them. The expired ones are gone already.
    const unclaimed =
      rows.some((row) => row[6] !== '1') &&
      (await this.#settings.replicated?.(`${base}all`)) === false;
    return (unclaimed ? rows.filter((row) => row[6] === '1') : rows).map(
      ([webhookId, url, payload, attempts, authorization, principal, expired]) => ({
        webhookId,
        url,
        payload,
        attempts: Number(attempts),
        claim,
        ...(authorization === null || authorization === undefined ? {} : { authorization }),
        ...(principal === '' ? {} : { principal }),
        ...(expired === '1' ? { expired: true } : {}),
      }),
    );
  }

  /**
   * Deletes a delivered or abandoned entry if `claim` still holds. When Redis cannot be reached
   * (a failover, a lost reply), it rejects, and keeps trying in the background while the claim
   * lasts: a completion that never lands would have the entry delivered again once the claim
   * lapses. Likewise, without rejecting, when the primary gave no answer to the completion's WAIT.
   */
  async complete(webhookId: string, claim: string): Promise<void> {
    try {
      if (!(await this.#complete(webhookId, claim)))
        this.#retryComplete(webhookId, claim, this.leaseMs / 2);
    } catch (error) {
      this.#retryComplete(webhookId, claim, this.leaseMs / 2);
      throw error;
    }
  }

  /**
   * The completion script; `false` when it deleted the entry and the WAIT that follows got no
   * answer (a failover may lose the deletion, so it is sent again).
   */
  async #complete(webhookId: string, claim: string): Promise<boolean> {
    const bucket = this.#bucketOfClaim(claim);
    if (bucket === undefined) return true;
    const done = await this.#redis.script(COMPLETE_CALLBACK, this.#entryKeys(bucket, webhookId), [
      this.#keys.outbox(bucket),
      webhookId,
      claim,
    ]);
    // A completion lost in a failover would send the callback again.
    if (Number(done) !== 1) return true;
    return (await this.#settings.replicated?.(`${this.#keys.outbox(bucket)}all`)) !== false;
  }

  /** Sends a completion (or a retraction) again until it lands, for `forMs` at most. */
  #retryComplete(webhookId: string, claim: string, forMs: number): void {
    void this.#redis.retry(() => this.#complete(webhookId, claim), forMs);
  }

  async reschedule(
    webhookId: string,
    claim: string,
    attempts: number,
    delayMs: number,
  ): Promise<void> {
    const bucket = this.#bucketOfClaim(claim);
    if (bucket === undefined) return;
    await this.#redis.script(RESCHEDULE_CALLBACK, this.#entryKeys(bucket, webhookId), [
      this.#keys.outbox(bucket),
      webhookId,
      claim,
      String(attempts),
      String(Math.max(0, Math.round(delayMs))),
    ]);
  }

  /** Entries waiting (due or not, claimed or not), all principals together. */
  async size(): Promise<number> {
    const counts = await this.#redis.call((client) =>
      Promise.all(
        Array.from({ length: this.#keys.buckets }, (_, bucket) =>
          client.zCard(`${this.#keys.outbox(bucket)}all`),
        ),
      ),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Entries `principal` has waiting (due or not, claimed or not). */
  async sizeOf(principal: string): Promise<number> {
    const base = this.#keys.outbox(this.#keys.bucketOf(principal));
    return this.#redis.call((client) => client.zCard(`${base}q:${principal}`));
  }

  /** The bucket a claim token names (`<bucket>.<uuid>`); undefined for a token not ours. */
  #bucketOfClaim(claim: string): number | undefined {
    const bucket = Number(claim.slice(0, claim.indexOf('.')));
    return Number.isInteger(bucket) && bucket >= 0 && bucket < this.#keys.buckets
      ? bucket
      : undefined;
  }

  #shared(bucket: number): string[] {
    const base = this.#keys.outbox(bucket);
    return [`${base}all`, `${base}ready`, `${base}bytes`, `${base}served`];
  }

  #entryKeys(bucket: number, webhookId: string): string[] {
    return [...this.#shared(bucket), `${this.#keys.outbox(bucket)}entry:${webhookId}`];
  }
}
