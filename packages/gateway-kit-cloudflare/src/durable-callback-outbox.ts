import {
  type CallbackOutbox,
  type ClaimedOutboxEntry,
  checkOptionNames,
  type OutboxEntry,
} from '@svc/gateway-kit/store';
import type { DurableStorage, SqlStorage } from './durable-storage.ts';
import { MAX_TIMER_MS, optionChecks, utf8Bytes } from './time.ts';

const check = optionChecks('new DurableCallbackOutbox');

/**
 * Options of {@link DurableCallbackOutbox}.
 *
 * @example
 * const options: DurableCallbackOutboxOptions = { maxEntries: 1_000 };
 */
export interface DurableCallbackOutboxOptions {
  /** Prefix of the outbox's SQLite table (letters, digits, `_`). Default `gw_`. */
  readonly prefix?: string;
  /** How long a claim lasts, in ms. Default 60 000 (well above a callback attempt's timeout). */
  readonly leaseMs?: number;
  /** How often a dispatcher looks for due entries while the object is awake, in ms. Default 1 000. */
  readonly pollIntervalMs?: number;
  /** Entries kept at most; beyond it `enqueue` answers `full`. Default 10 000. */
  readonly maxEntries?: number;
  /**
   * Entries one principal may have waiting (the entry's `principal`; none: the anonymous
   * principal `''`); beyond it `enqueue` answers `full` for that principal only. Default 1 000.
   */
  readonly maxEntriesPerPrincipal?: number;
  /** Bytes (URL, payload, authorization) one principal may have waiting. Default 32 MiB. */
  readonly maxBytesPerPrincipal?: number;
  /**
   * How long an entry may wait in all, in ms; past it the next claim removes it and hands it out
   * once more marked `expired` (the dispatcher reports it, without sending). Default 24 h.
   */
  readonly ttlMs?: number;
  /** Clock in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** The names of {@link DurableCallbackOutboxOptions}: any other is refused (a misspelt one would be ignored). */
const OUTBOX_OPTION_NAMES: readonly string[] = Object.keys({
  prefix: true,
  leaseMs: true,
  pollIntervalMs: true,
  maxEntries: true,
  maxEntriesPerPrincipal: true,
  maxBytesPerPrincipal: true,
  ttlMs: true,
  now: true,
} satisfies Record<keyof DurableCallbackOutboxOptions, true>);

/**
 * Checks the values of a {@link DurableCallbackOutbox}'s limits and timings (not the option
 * names), as its constructor does, and returns them with their defaults. The refusals are
 * `factory`'s, each option named after `path`: the gateway object checks its `stores.outbox` with
 * this when the Worker's module loads (`createGatewayWorker: stores.outbox.ttlMs is the number 0:
 * …`). Throws `GatewayConfigError`.
 */
export function outboxLimits(
  options: DurableCallbackOutboxOptions,
  factory = 'new DurableCallbackOutbox',
  path = '',
): {
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  readonly maxEntries: number;
  readonly maxEntriesPerPrincipal: number;
  readonly maxBytesPerPrincipal: number;
  readonly ttlMs: number;
} {
  const checks = optionChecks(factory);
  return {
    leaseMs: checks.positiveInteger(`${path}leaseMs`, options.leaseMs ?? 60_000),
    pollIntervalMs: checks.timerMs(`${path}pollIntervalMs`, options.pollIntervalMs ?? 1_000),
    maxEntries: checks.positiveInteger(`${path}maxEntries`, options.maxEntries ?? 10_000),
    maxEntriesPerPrincipal: checks.positiveInteger(
      `${path}maxEntriesPerPrincipal`,
      options.maxEntriesPerPrincipal ?? 1_000,
    ),
    maxBytesPerPrincipal: checks.positiveInteger(
      `${path}maxBytesPerPrincipal`,
      options.maxBytesPerPrincipal ?? 32 * 1024 * 1024,
    ),
    ttlMs: checks.positiveInteger(`${path}ttlMs`, options.ttlMs ?? 24 * 60 * 60 * 1000),
  };
}

interface OutboxRow extends Record<string, string | number | null> {
  webhook_id: string;
  expires_at: number;
  principal: string;
  url: string;
  payload: string;
  auth: string | null;
  attempts: number;
}

/**
 * A `CallbackOutbox` (`@svc/gateway-kit/store`) on a Durable Object's SQLite storage: pending callbacks survive the
 * object's eviction and restarts, and the object's alarm (see {@link nextDueAt}) makes the next
 * attempt when nothing else woke it. Each method is one synchronous transaction.
 *
 * @example
 * const outbox = new DurableCallbackOutbox(this.ctx.storage);
 * const jobs = new DurableJobStore(this.ctx.storage, { callbackOutbox: outbox });
 */
export class DurableCallbackOutbox implements CallbackOutbox {
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  readonly #storage: DurableStorage;
  readonly #sql: SqlStorage;
  readonly #table: string;
  readonly #maxEntries: number;
  readonly #maxPerPrincipal: number;
  readonly #maxBytesPerPrincipal: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  /** Called after each write that may move the next due time (the object re-arms its alarm). */
  onChange: (() => void) | undefined;
  #claimWaiters: (() => void)[] = [];

  constructor(storage: DurableStorage, options: DurableCallbackOutboxOptions = {}) {
    checkOptionNames('new DurableCallbackOutbox', options, OUTBOX_OPTION_NAMES);
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#table = `${check.tablePrefix(options.prefix ?? 'gw_')}outbox`;
    const limits = outboxLimits(options);
    this.leaseMs = limits.leaseMs;
    this.pollIntervalMs = limits.pollIntervalMs;
    this.#maxEntries = limits.maxEntries;
    this.#maxPerPrincipal = limits.maxEntriesPerPrincipal;
    this.#maxBytesPerPrincipal = limits.maxBytesPerPrincipal;
    this.#ttlMs = limits.ttlMs;
    this.#now = check.clock(options.now);
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS ${this.#table} (webhook_id TEXT PRIMARY KEY, url TEXT NOT NULL,
        payload TEXT NOT NULL, auth TEXT, attempts INTEGER NOT NULL,
        due_at INTEGER NOT NULL, claim TEXT, principal TEXT NOT NULL, expires_at INTEGER NOT NULL,
        bytes INTEGER NOT NULL)`,
    );
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS ${this.#table}_due ON ${this.#table} (due_at)`);
    this.#sql.exec(
      `CREATE INDEX IF NOT EXISTS ${this.#table}_principal ON ${this.#table} (principal, due_at)`,
    );
  }

  async enqueue(entry: Omit<OutboxEntry, 'attempts'>): Promise<
    | {
        /** Opaque token of the caller's claim, for `complete` and `reschedule`. */
        readonly claim: string;
      }
    | 'exists'
    | 'full'
  > {
    const claim = crypto.randomUUID();
    const now = this.#now();
    const result = this.#storage.transactionSync(() => {
      const exists = this.#sql
        .exec(`SELECT 1 FROM ${this.#table} WHERE webhook_id = ?`, entry.webhookId)
        .toArray();
      if (exists.length > 0) return 'exists' as const;
      const size = this.#sql
        .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${this.#table}`)
        .one().n;
      if (size >= this.#maxEntries) return 'full' as const;
      // The principal's own share, so that one caller cannot fill the outbox for the others.
      const principal = entry.principal ?? '';
      const bytes =
        utf8Bytes(entry.url) + utf8Bytes(entry.payload) + utf8Bytes(entry.authorization ?? '');
      const mine = this.#sql
        .exec<{ n: number; bytes: number }>(
          `SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM ${this.#table}
           WHERE principal = ?`,
          principal,
        )
        .one();
      if (mine.n >= this.#maxPerPrincipal || mine.bytes + bytes > this.#maxBytesPerPrincipal)
        return 'full' as const;
      // Claimed by the caller: due again only if its lease lapses (the instance died).
      this.#sql.exec(
        `INSERT INTO ${this.#table}
           (webhook_id, url, payload, auth, attempts, due_at, claim, principal, expires_at, bytes)
         VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
        entry.webhookId,
        entry.url,
        entry.payload,
        entry.authorization ?? null,
        now + this.leaseMs,
        claim,
        principal,
        now + this.#ttlMs,
        bytes,
      );
      return { claim };
    });
    this.onChange?.();
    return result;
  }

  async claimDue(limit: number): Promise<ClaimedOutboxEntry[]> {
    const count = Math.max(0, Math.floor(limit));
    if (count === 0) return [];
    const claim = crypto.randomUUID();
    const now = this.#now();
    const rows = this.#storage.transactionSync(() => {
      // Fair across principals: each one's earliest due entry first, then each one's second…
      const due = this.#sql
        .exec<OutboxRow>(
          `SELECT webhook_id, url, payload, auth, attempts, expires_at, principal FROM (
             SELECT *, ROW_NUMBER() OVER (PARTITION BY principal ORDER BY due_at) AS turn
             FROM ${this.#table} WHERE due_at <= ?)
           ORDER BY turn, due_at LIMIT ?`,
          now,
          count,
        )
        .toArray();
      for (const row of due) {
        if (row.expires_at <= now) {
          // Waited too long: removed now, handed out once to be reported as expired.
          this.#sql.exec(`DELETE FROM ${this.#table} WHERE webhook_id = ?`, row.webhook_id);
          continue;
        }
        this.#sql.exec(
          `UPDATE ${this.#table} SET claim = ?, due_at = ? WHERE webhook_id = ?`,
          claim,
          now + this.leaseMs,
          row.webhook_id,
        );
      }
      return due;
    });
    if (rows.length > 0) this.onChange?.();
    const waiters = this.#claimWaiters;
    this.#claimWaiters = [];
    for (const wake of waiters) wake();
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      url: row.url,
      payload: row.payload,
      attempts: row.attempts,
      claim,
      ...(row.auth === null ? {} : { authorization: row.auth }),
      ...(row.principal === '' ? {} : { principal: row.principal }),
      ...(row.expires_at <= now ? { expired: true } : {}),
    }));
  }

  async complete(webhookId: string, claim: string): Promise<void> {
    this.#sql.exec(
      `DELETE FROM ${this.#table} WHERE webhook_id = ? AND claim = ?`,
      webhookId,
      claim,
    );
    this.onChange?.();
  }

  async reschedule(
    webhookId: string,
    claim: string,
    attempts: number,
    delayMs: number,
  ): Promise<void> {
    this.#sql.exec(
      `UPDATE ${this.#table} SET claim = NULL, attempts = ?, due_at = ?
       WHERE webhook_id = ? AND claim = ?`,
      attempts,
      this.#now() + Math.max(0, delayMs),
      webhookId,
      claim,
    );
    this.onChange?.();
  }

  /**
   * Settles after the next `claimDue` (a dispatcher's poll), or after `timeoutMs`: the alarm waits
   * for it, so that due entries are claimed and attempted before the alarm invocation ends.
   */
  nextPoll(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.min(timeoutMs, MAX_TIMER_MS));
      this.#claimWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Entries waiting (due or not, claimed or not). */
  get size(): number {
    return this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${this.#table}`).one().n;
  }

  /** When the earliest entry is due (epoch ms), if any: the object's alarm fires then. */
  nextDueAt(): number | undefined {
    const at = this.#sql
      .exec<{ at: number | null }>(`SELECT MIN(due_at) AS at FROM ${this.#table}`)
      .one().at;
    return at === null ? undefined : at;
  }
}
