import { randomUUID } from 'node:crypto';
import type { CallbackOutbox, ClaimedOutboxEntry, OutboxEntry } from '@svc/gateway-kit/store';
import type { PostgresConnection } from './postgres-connection.ts';

/** How a {@link PostgresCallbackOutbox} keeps its entries (set by `PostgresJobStore`). */
export interface PostgresCallbackOutboxSettings {
  /** How long a claim on an entry lasts, in ms: an entry whose sender died is claimed again after it. */
  readonly leaseMs: number;
  /** How often, in ms, the gateway looks for due entries. */
  readonly pollIntervalMs: number;
  /** Pending entries kept at most (a positive integer); beyond it `enqueue` answers `full`. */
  readonly maxEntries: number;
  /** How long an entry may wait at most, in ms, before it is dropped. */
  readonly ttlMs: number;
  /** Pending entries one principal may have (a positive integer). */
  readonly maxEntriesPerPrincipal: number;
  /** Payload bytes one principal's pending entries may hold (a positive integer). */
  readonly maxBytesPerPrincipal: number;
  /** Advisory lock class of this schema's per-principal enqueue locks. */
  readonly lockClass: number;
}

interface OutboxRow {
  readonly webhook_id: string;
  readonly url: string;
  readonly payload: string;
  readonly authorization: string | null;
  readonly attempts: number;
  readonly owner_id: string | null;
  readonly expired: boolean;
}

interface PreClaim {
  readonly claim: string;
  readonly at: number;
}

/** The terminal statuses, whose job-result callbacks a terminal write may have stored. */
const FINISHED = ['completed', 'failed', 'cancelled'] as const;

/**
 * The `CallbackOutbox` of a `PostgresJobStore` (its `callbackOutbox`): pending callbacks in the
 * `outbox` table, shared by every instance on the same schema. Due entries are claimed with
 * `FOR UPDATE SKIP LOCKED`, so instances polling at once never claim the same entry; a claim is a
 * due time `leaseMs` ahead, so an entry whose instance died is simply due again. Times are the
 * database server's clock.
 *
 * A job's terminal write already stores its job-result callback, claimed by the writing instance:
 * when that instance's gateway then enqueues the same `webhookId`, it takes the stored entry over
 * (its own bytes replace the stored ones) and attempts it at once.
 *
 * @example
 * const outbox = new PostgresJobStore({ connectionString }).callbackOutbox;
 * const claimed = await outbox.claimDue(10);
 */
export class PostgresCallbackOutbox implements CallbackOutbox {
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  readonly #db: PostgresConnection;
  readonly #s: string;
  readonly #settings: PostgresCallbackOutboxSettings;
  /**
   * Entries this instance's terminal writes stored, by webhook id, until taken over or announced.
   * Keyed by webhook id, not job id: a runner's refused completion must not replace the claim of
   * the cancel that won.
   */
  readonly #preClaims = new Map<string, PreClaim>();

  /**
   * Made by the job store, on its own connection: use `store.callbackOutbox`.
   * @hidden
   */
  constructor(db: PostgresConnection, settings: PostgresCallbackOutboxSettings) {
    this.#db = db;
    this.#s = db.schema;
    this.#settings = settings;
    this.leaseMs = settings.leaseMs;
    this.pollIntervalMs = settings.pollIntervalMs;
  }

  async enqueue(
    entry: Omit<OutboxEntry, 'attempts'>,
  ): Promise<{ readonly claim: string } | 'exists' | 'full'> {
    const claim = randomUUID();
    const stored = this.#preClaims.get(entry.webhookId);
    if (stored !== undefined) {
      this.#preClaims.delete(entry.webhookId);
      const taken = await this.#db.query(
        `UPDATE ${this.#s}.outbox
         SET url = $3, payload = $4, "authorization" = $5, claim = $6,
             due_at = clock_timestamp() + make_interval(secs => $7 / 1000.0)
         WHERE webhook_id = $1 AND claim = $2 AND NOT done
         RETURNING 1`,
        [
          entry.webhookId,
          stored.claim,
          entry.url,
          entry.payload,
          entry.authorization ?? null,
          claim,
          this.leaseMs,
        ],
      );
      if (taken.length > 0) return { claim };
    }
    // The entry's principal (its job's or approval's owner); '' when the dispatcher names none.
    const principal = entry.principal ?? '';
    const [row] = await this.#db.query<{ result: 'ok' | 'exists' | 'full' }>(
      `SELECT ${this.#s}.enqueue_callback($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS result`,
      [
        entry.webhookId,
        entry.url,
        entry.payload,
        entry.authorization ?? null,
        claim,
        this.leaseMs,
        this.#settings.maxEntries,
        this.#settings.ttlMs,
        principal,
        this.#settings.maxEntriesPerPrincipal,
        this.#settings.maxBytesPerPrincipal,
        this.#settings.lockClass,
      ],
    );
    return row!.result === 'ok' ? { claim } : row!.result;
  }

  async claimDue(limit: number): Promise<ClaimedOutboxEntry[]> {
    const count = Math.max(0, Math.floor(limit));
    if (count === 0) return [];
    const claim = randomUUID();
    // First, entries past retention: removed and handed back once with `expired: true` (the
    // dispatcher reports them without sending). Then, in the slots left, due entries, fair across
    // principals: among the earliest due (a window of 8 × limit, read without locks), each
    // principal's first entry comes before anyone's second, so one principal's backlog cannot
    // hold the others' callbacks back. Only the entries picked are locked (skipping those another
    // instance is claiming) and re-checked as still due.
    const rows = await this.#db.query<OutboxRow>(
      `WITH gone AS (
         DELETE FROM ${this.#s}.outbox WHERE webhook_id IN (
           SELECT webhook_id FROM ${this.#s}.outbox
           WHERE expires_at <= now() AND NOT done
           ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING webhook_id, url, payload, "authorization", attempts, owner_id, true AS expired),
       candidates AS (
         SELECT webhook_id, owner_id, due_at FROM ${this.#s}.outbox
         WHERE due_at <= now() AND NOT done AND expires_at > now()
         ORDER BY due_at LIMIT $4),
       picked AS (
         SELECT webhook_id FROM (
           SELECT webhook_id, due_at,
             row_number() OVER (PARTITION BY owner_id ORDER BY due_at) AS turn
           FROM candidates) turns
         ORDER BY turn, due_at LIMIT greatest($3 - (SELECT count(*) FROM gone), 0)),
       locked AS (
         SELECT o.webhook_id FROM ${this.#s}.outbox o JOIN picked USING (webhook_id)
         WHERE o.due_at <= now() AND NOT o.done
         FOR UPDATE OF o SKIP LOCKED),
       claimed AS (
         UPDATE ${this.#s}.outbox o
         SET claim = $1, due_at = clock_timestamp() + make_interval(secs => $2 / 1000.0)
         FROM locked WHERE o.webhook_id = locked.webhook_id
         RETURNING o.webhook_id, o.url, o.payload, o."authorization", o.attempts, o.owner_id,
           false AS expired)
       SELECT * FROM gone UNION ALL SELECT * FROM claimed`,
      [claim, this.leaseMs, count, Math.min(count * 8, 1_000)],
    );
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      url: row.url,
      payload: row.payload,
      attempts: row.attempts,
      claim,
      ...(row.authorization === null ? {} : { authorization: row.authorization }),
      ...(row.owner_id ? { principal: row.owner_id } : {}),
      ...(row.expired ? { expired: true } : {}),
    }));
  }

  async complete(webhookId: string, claim: string): Promise<void> {
    // A job-result entry stays (done) until it expires: reporting the job's end again must not
    // send it twice. Other entries go at once.
    await this.#db.query(
      `WITH kept AS (
         UPDATE ${this.#s}.outbox SET done = true, claim = NULL
         WHERE webhook_id = $1 AND claim = $2 AND job_id IS NOT NULL)
       DELETE FROM ${this.#s}.outbox WHERE webhook_id = $1 AND claim = $2 AND job_id IS NULL`,
      [webhookId, claim],
    );
  }

  async reschedule(
    webhookId: string,
    claim: string,
    attempts: number,
    delayMs: number,
  ): Promise<void> {
    await this.#db.query(
      `UPDATE ${this.#s}.outbox
       SET attempts = $3, claim = NULL,
           due_at = clock_timestamp() + make_interval(secs => $4 / 1000.0)
       WHERE webhook_id = $1 AND claim = $2 AND NOT done`,
      [webhookId, claim, attempts, Math.max(0, Math.round(delayMs))],
    );
  }

  /** Entries waiting (due or not, claimed or not; delivered ones not counted). */
  async size(): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.#s}.outbox WHERE NOT done`,
    );
    return row!.n;
  }

  /** @internal The store's terminal write stored `webhookId`'s entry under `claim`. */
  preClaimed(webhookId: string, claim: string): void {
    // Bounded: a claim older than the lease is worthless (the entry is due for anyone).
    const now = Date.now();
    for (const [id, stored] of this.#preClaims) {
      if (now - stored.at < this.leaseMs) break;
      this.#preClaims.delete(id);
    }
    this.#preClaims.delete(webhookId);
    this.#preClaims.set(webhookId, { claim, at: now });
  }

  /** @internal The job's end was announced: the entries its terminal write stored, not taken over. */
  releasePreClaims(jobId: string): { webhookIds: string[]; claims: string[] } {
    const webhookIds: string[] = [];
    const claims: string[] = [];
    for (const status of FINISHED) {
      const webhookId = `job_${jobId}_${status}`;
      const stored = this.#preClaims.get(webhookId);
      if (!stored) continue;
      this.#preClaims.delete(webhookId);
      webhookIds.push(webhookId);
      claims.push(stored.claim);
    }
    return { webhookIds, claims };
  }

  /**
   * @internal Deletes one batch of expired entries: delivered ones, and (a safety net, for an
   * outbox nobody polls) pending ones an hour past expiry; claims report pending ones long before.
   */
  async deleteExpired(batch: number): Promise<void> {
    await this.#db.query(
      `DELETE FROM ${this.#s}.outbox WHERE webhook_id IN (
         SELECT webhook_id FROM ${this.#s}.outbox
         WHERE expires_at <= now() AND (done OR expires_at <= now() - interval '1 hour')
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [batch],
    );
  }
}
