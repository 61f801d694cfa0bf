import { randomUUID } from 'node:crypto';
import type { CallbackOutbox, ClaimedOutboxEntry, OutboxEntry } from '@svc/gateway-kit/store';
import {
  CLAIM_CALLBACKS,
  COMPLETE_CALLBACK,
  ENQUEUE_CALLBACK,
  RESCHEDULE_CALLBACK,
} from './callback-scripts.ts';
import type { RedisConnection } from './redis-connection.ts';

/** How a {@link RedisCallbackOutbox} keeps its entries (set by `RedisJobStore`). */
export interface RedisCallbackOutboxSettings {
  readonly prefix: string;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  /** Entries kept at most (0: unbounded); beyond it `enqueue` answers `full`. */
  readonly maxEntries: number;
  /** How long an entry may wait at most, in ms, before it is dropped. */
  readonly ttlMs: number;
  /** Resolves once a write to the key reached the replicas the store asks for (`waitForReplicas`). */
  readonly replicated?: (key: string) => Promise<void>;
}

/**
 * The `CallbackOutbox` of a `RedisJobStore` (its `callbackOutbox`): pending callbacks in Redis,
 * shared by every instance with the same prefix. Every operation is one Lua script; times are
 * Redis' clock.
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
      entry.webhookId,
      claim,
      String(this.leaseMs),
      String(this.#settings.maxEntries),
      String(this.#settings.ttlMs),
      entry.url,
      entry.payload,
      entry.authorization === undefined ? '0' : '1',
      entry.authorization ?? '',
    ]);
    if (reply !== 'ok') return reply as 'exists' | 'full';
    await this.#settings.replicated?.(this.#dueKey());
    return { claim };
  }

  async claimDue(limit: number): Promise<ClaimedOutboxEntry[]> {
    const claim = randomUUID();
    const rows = (await this.#redis.script(
      CLAIM_CALLBACKS,
      [this.#dueKey()],
      [this.#entryPrefix(), claim, String(this.leaseMs), String(Math.max(0, Math.floor(limit)))],
    )) as [string, string, string, string, string | null][];
    return rows.map(([webhookId, url, payload, attempts, authorization]) => ({
      webhookId,
      url,
      payload,
      attempts: Number(attempts),
      claim,
      ...(authorization === null || authorization === undefined ? {} : { authorization }),
    }));
  }

  async complete(webhookId: string, claim: string): Promise<void> {
    const done = await this.#redis.script(COMPLETE_CALLBACK, this.#keys(webhookId), [
      webhookId,
      claim,
    ]);
    // A completion lost in a failover would send the callback again.
    if (Number(done) === 1) await this.#settings.replicated?.(this.#dueKey());
  }

  async reschedule(
    webhookId: string,
    claim: string,
    attempts: number,
    delayMs: number,
  ): Promise<void> {
    await this.#redis.script(RESCHEDULE_CALLBACK, this.#keys(webhookId), [
      webhookId,
      claim,
      String(attempts),
      String(Math.max(0, Math.round(delayMs))),
    ]);
  }

  /** Entries waiting (due or not, claimed or not). */
  async size(): Promise<number> {
    return this.#redis.call((client) => client.zCard(this.#dueKey()));
  }

  #dueKey(): string {
    return `${this.#settings.prefix}cb:due`;
  }

  #entryPrefix(): string {
    return `${this.#settings.prefix}cb:entry:`;
  }

  #keys(webhookId: string): string[] {
    return [this.#dueKey(), `${this.#entryPrefix()}${webhookId}`];
  }
}
