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
import type { RedisConnection } from './redis-connection.ts';

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
   * integer. Default 10 000.
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
 * callbackShares({}); // { maxEntriesPerPrincipal: 10_000, maxBytesPerPrincipal: 33_554_432 }
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
    maxEntriesPerPrincipal: share('maxPendingCallbacksPerPrincipal', 10_000),
    maxBytesPerPrincipal: share('maxPendingCallbackBytesPerPrincipal', 32 * 1024 * 1024),
  };
}

/** How a {@link RedisCallbackOutbox} keeps its entries (set by `RedisJobStore`). */
export interface RedisCallbackOutboxSettings {
  readonly prefix: string;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  /** Entries kept at most, all principals together; beyond it `enqueue` answers `full`. */
  readonly maxEntries: number;
  /** Entries one principal may have pending; beyond it, `full` for that principal. */
  readonly maxEntriesPerPrincipal: number;
  /** Bytes (URL, payload, authorization) one principal may have pending. */
  readonly maxBytesPerPrincipal: number;
  /** How long an entry may wait at most, in ms; then it is removed and reported as `expired`. */
  readonly ttlMs: number;
  /** Resolves once a write to the key reached the replicas the store asks for (`waitForReplicas`). */
  readonly replicated?: (key: string) => Promise<void>;
}

/**
 * The `CallbackOutbox` of a `RedisJobStore` (its `callbackOutbox`): pending callbacks in Redis,
 * shared by every instance with the same prefix, counted per principal (items and bytes) and
 * claimed fairly across principals. Every operation is one Lua script; times are Redis' clock.
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

  constructor(redis: RedisConnection, settings: RedisCallbackOutboxSettings) {
    this.#redis = redis;
    this.#settings = settings;
    this.leaseMs = settings.leaseMs;
    this.pollIntervalMs = settings.pollIntervalMs;
  }

  async enqueue(
    entry: Omit<OutboxEntry, 'attempts'>,
  ): Promise<{ readonly claim: string } | 'exists' | 'full'> {
    const claim = randomUUID();
    const reply = await this.#redis.script(ENQUEUE_CALLBACK, this.#keys(entry.webhookId), [
      this.#base(),
      entry.webhookId,
      claim,
      String(this.leaseMs),
      String(this.#settings.maxEntries),
      String(this.#settings.ttlMs),
      entry.url,
      entry.payload,
      entry.authorization === undefined ? '0' : '1',
      entry.authorization ?? '',
      entry.principal ?? '',
      String(this.#settings.maxEntriesPerPrincipal),
      String(this.#settings.maxBytesPerPrincipal),
    ]);
    if (reply !== 'ok') return reply as 'exists' | 'full';
    await this.#settings.replicated?.(`${this.#base()}all`);
    return { claim };
  }

  async claimDue(limit: number): Promise<ClaimedOutboxEntry[]> {
    const claim = randomUUID();
    const rows = (await this.#redis.script(CLAIM_CALLBACKS, this.#shared(), [
      this.#base(),
      claim,
      String(this.leaseMs),
      String(Math.max(0, Math.floor(limit))),
    ])) as [string, string, string, string, string | null, string, string][];
    return rows.map(([webhookId, url, payload, attempts, authorization, principal, expired]) => ({
      webhookId,
      url,
      payload,
      attempts: Number(attempts),
      claim,
      ...(authorization === null || authorization === undefined ? {} : { authorization }),
      ...(principal === '' ? {} : { principal }),
      ...(expired === '1' ? { expired: true } : {}),
    }));
  }

  async complete(webhookId: string, claim: string): Promise<void> {
    const done = await this.#redis.script(COMPLETE_CALLBACK, this.#keys(webhookId), [
      this.#base(),
      webhookId,
      claim,
    ]);
    // A completion lost in a failover would send the callback again.
    if (Number(done) === 1) await this.#settings.replicated?.(`${this.#base()}all`);
  }

  async reschedule(
    webhookId: string,
    claim: string,
    attempts: number,
    delayMs: number,
  ): Promise<void> {
    await this.#redis.script(RESCHEDULE_CALLBACK, this.#keys(webhookId), [
      this.#base(),
      webhookId,
      claim,
      String(attempts),
      String(Math.max(0, Math.round(delayMs))),
    ]);
  }

  /** Entries waiting (due or not, claimed or not), all principals together. */
  async size(): Promise<number> {
    return this.#redis.call((client) => client.zCard(`${this.#base()}all`));
  }

  /** Entries `principal` has waiting (due or not, claimed or not). */
  async sizeOf(principal: string): Promise<number> {
    return this.#redis.call((client) => client.zCard(`${this.#base()}q:${principal}`));
  }

  #base(): string {
    return `${this.#settings.prefix}cb:`;
  }

  #shared(): string[] {
    const base = this.#base();
    return [`${base}all`, `${base}ready`, `${base}bytes`, `${base}served`];
  }

  #keys(webhookId: string): string[] {
    return [...this.#shared(), `${this.#base()}entry:${webhookId}`];
  }
}
