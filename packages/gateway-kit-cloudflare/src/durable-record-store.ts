import {
  checkOptionNames,
  type RecordStore,
  RecordStoreFullError,
  type SetEntry,
  type VersionedRecord,
} from '@svc/gateway-kit/store';
import type { DurableStorage, SqlStorage } from './durable-storage.ts';
import { optionChecks, utf8Bytes } from './time.ts';
import { trackUsage, type Usage } from './usage.ts';

const check = optionChecks('new DurableRecordStore');

/**
 * Options of {@link DurableRecordStore}.
 *
 * @example
 * const options: DurableRecordStoreOptions = { maxRecords: 10_000 };
 */
export interface DurableRecordStoreOptions {
  /** Prefix of the store's SQLite tables (letters, digits, `_`). Default `gw_`. */
  readonly prefix?: string;
  /** Most live records kept at once. Default 100 000. */
  readonly maxRecords?: number;
  /** Most bytes of record values (as JSON) kept at once. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Most set members kept at once, over all sets. Default 1 000 000. */
  readonly maxMembers?: number;
  /** Clock in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** The names of {@link DurableRecordStoreOptions}: any other is refused (a misspelt one would be ignored). */
const RECORD_STORE_OPTION_NAMES: readonly string[] = Object.keys({
  prefix: true,
  maxRecords: true,
  maxBytes: true,
  maxMembers: true,
  now: true,
} satisfies Record<keyof DurableRecordStoreOptions, true>);

/**
 * Checks the values of a {@link DurableRecordStore}'s limits (not the option names), as its
 * constructor does, and returns them with their defaults. The refusals are `factory`'s, each
 * option named after `path`: the gateway object checks its `stores.records` with this when the
 * Worker's module loads (`createGatewayWorker: stores.records.maxRecords is the number 0: …`).
 * Throws `GatewayConfigError`.
 */
export function recordStoreLimits(
  options: DurableRecordStoreOptions,
  factory = 'new DurableRecordStore',
  path = '',
): { readonly maxRecords: number; readonly maxBytes: number; readonly maxMembers: number } {
  const checks = optionChecks(factory);
  return {
    maxRecords: checks.positiveInteger(`${path}maxRecords`, options.maxRecords ?? 100_000),
    maxBytes: checks.positiveInteger(`${path}maxBytes`, options.maxBytes ?? 64 * 1024 * 1024),
    maxMembers: checks.positiveInteger(`${path}maxMembers`, options.maxMembers ?? 1_000_000),
  };
}

interface RecordRow extends Record<string, string | number | null> {
  value: string;
  version: number;
  expires_at: number;
}

/**
 * A `RecordStore` (idempotency keys, approvals, quota sets) on a Durable Object's SQLite
 * storage. Each method is synchronous SQL in one transaction, so compare-and-set, create-if-absent
 * and bounded set adds are atomic; expired records are never returned and are deleted by
 * {@link sweep} (the Durable Object's alarm) and whenever room is needed.
 *
 * @example
 * export class GatewayObject extends DurableObject {
 *   records = new DurableRecordStore(this.ctx.storage);
 * }
 */
export class DurableRecordStore implements RecordStore {
  readonly #storage: DurableStorage;
  readonly #sql: SqlStorage;
  readonly #records: string;
  readonly #sets: string;
  readonly #maxRecords: number;
  readonly #maxBytes: number;
  readonly #maxMembers: number;
  readonly #now: () => number;
  readonly #recordUsage: () => Usage;
  readonly #setUsage: () => Usage;

  constructor(storage: DurableStorage, options: DurableRecordStoreOptions = {}) {
    checkOptionNames('new DurableRecordStore', options, RECORD_STORE_OPTION_NAMES);
    this.#storage = storage;
    this.#sql = storage.sql;
    const prefix = check.tablePrefix(options.prefix ?? 'gw_');
    this.#records = `${prefix}records`;
    this.#sets = `${prefix}sets`;
    const limits = recordStoreLimits(options);
    this.#maxRecords = limits.maxRecords;
    this.#maxBytes = limits.maxBytes;
    this.#maxMembers = limits.maxMembers;
    this.#now = check.clock(options.now);
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS ${this.#records} (key TEXT PRIMARY KEY, value TEXT NOT NULL,
        bytes INTEGER NOT NULL, version INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
    );
    this.#sql.exec(
      `CREATE INDEX IF NOT EXISTS ${this.#records}_expiry ON ${this.#records} (expires_at)`,
    );
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS ${this.#sets} (name TEXT NOT NULL, member TEXT NOT NULL,
        expires_at INTEGER NOT NULL, PRIMARY KEY (name, member))`,
    );
    this.#sql.exec(
      `CREATE INDEX IF NOT EXISTS ${this.#sets}_order ON ${this.#sets} (name, expires_at, member)`,
    );
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS ${this.#sets}_expiry ON ${this.#sets} (expires_at)`);
    this.#recordUsage = trackUsage(this.#sql, this.#records, true);
    this.#setUsage = trackUsage(this.#sql, this.#sets, false);
  }

  async create<T>(
    key: string,
    value: T,
    ttlMs: number,
  ): Promise<{
    /** `false` when a live record had the key already. */
    readonly created: boolean;
    /** The record as stored: the new one, or the one that existed. */
    readonly record: VersionedRecord<T>;
  }> {
    const json = encode(value);
    const now = this.#now();
    return this.#storage.transactionSync(() => {
      const existing = this.#live(key, now);
      if (existing) return { created: false, record: snapshot<T>(existing) };
      // An expired record under this key goes first (a plain delete, so the usage triggers run).
      this.#sql.exec(`DELETE FROM ${this.#records} WHERE key = ?`, key);
      const bytes = utf8Bytes(json) + utf8Bytes(key);
      this.#makeRoom(bytes, true, now);
      this.#sql.exec(
        `INSERT INTO ${this.#records} (key, value, bytes, version, expires_at)
         VALUES (?, ?, ?, 1, ?)`,
        key,
        json,
        bytes,
        now + ttlMs,
      );
      return { created: true, record: { value: JSON.parse(json) as T, version: 1 } };
    });
  }

  async get<T>(key: string): Promise<VersionedRecord<T> | undefined> {
    const row = this.#live(key, this.#now());
    return row ? snapshot<T>(row) : undefined;
  }

  async replace<T>(
    key: string,
    expectedVersion: number,
    value: T,
    ttlMs: number,
  ): Promise<VersionedRecord<T> | undefined> {
    const json = encode(value);
    const now = this.#now();
    return this.#storage.transactionSync(() => {
      const row = this.#live(key, now);
      if (!row || row.version !== expectedVersion) return undefined;
      const bytes = utf8Bytes(json) + utf8Bytes(key);
      this.#makeRoom(bytes - Number(row.bytes), false, now);
      this.#sql.exec(
        `UPDATE ${this.#records} SET value = ?, bytes = ?, version = version + 1, expires_at = ?
         WHERE key = ?`,
        json,
        bytes,
        now + ttlMs,
        key,
      );
      return { value: JSON.parse(json) as T, version: row.version + 1 };
    });
  }

  async delete(key: string, expectedVersion: number): Promise<boolean> {
    const now = this.#now();
    return this.#storage.transactionSync(() => {
      const row = this.#live(key, now);
      if (!row || row.version !== expectedVersion) return false;
      this.#sql.exec(`DELETE FROM ${this.#records} WHERE key = ?`, key);
      return true;
    });
  }

  async addToSet(set: string, member: string, ttlMs: number, maxSize?: number): Promise<boolean> {
    const now = this.#now();
    const expiresAt = now + ttlMs;
    return this.#storage.transactionSync(() => {
      this.#sql.exec(`DELETE FROM ${this.#sets} WHERE name = ? AND expires_at <= ?`, set, now);
      const existing = this.#sql
        .exec<{ expires_at: number }>(
          `SELECT expires_at FROM ${this.#sets} WHERE name = ? AND member = ?`,
          set,
          member,
        )
        .toArray()[0];
      if (existing) {
        // An existing member keeps the later of its two expiries.
        if (expiresAt > existing.expires_at) {
          this.#sql.exec(
            `UPDATE ${this.#sets} SET expires_at = ? WHERE name = ? AND member = ?`,
            expiresAt,
            set,
            member,
          );
        }
        return true;
      }
      if (maxSize !== undefined) {
        const size = this.#sql
          .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${this.#sets} WHERE name = ?`, set)
          .one().n;
        if (size >= maxSize) return false;
      }
      const total = (): number => this.#setUsage().n;
      if (total() >= this.#maxMembers) {
        this.#sql.exec(`DELETE FROM ${this.#sets} WHERE expires_at <= ?`, now);
        if (total() >= this.#maxMembers)
          throw new RecordStoreFullError('The record store is full.');
      }
      this.#sql.exec(
        `INSERT INTO ${this.#sets} (name, member, expires_at) VALUES (?, ?, ?)`,
        set,
        member,
        expiresAt,
      );
      return true;
    });
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    this.#sql.exec(`DELETE FROM ${this.#sets} WHERE name = ? AND member = ?`, set, member);
  }

  async rangeOfSet(set: string, limit: number, after?: SetEntry): Promise<SetEntry[]> {
    if (!(limit > 0)) return [];
    const now = this.#now();
    const rows = after
      ? this.#sql.exec<{ member: string; expires_at: number }>(
          `SELECT member, expires_at FROM ${this.#sets}
           WHERE name = ? AND expires_at > ? AND (expires_at > ? OR (expires_at = ? AND member > ?))
           ORDER BY expires_at, member LIMIT ?`,
          set,
          now,
          after.expiresAt,
          after.expiresAt,
          after.member,
          Math.floor(limit),
        )
      : this.#sql.exec<{ member: string; expires_at: number }>(
          `SELECT member, expires_at FROM ${this.#sets} WHERE name = ? AND expires_at > ?
           ORDER BY expires_at, member LIMIT ?`,
          set,
          now,
          Math.floor(limit),
        );
    return rows.toArray().map((row) => ({ member: row.member, expiresAt: row.expires_at }));
  }

  /**
   * Deletes expired records and set members. Returns when the next record or member expires
   * (epoch ms), if any: the Durable Object wakes then, since an expiry may be due work (a pending
   * approval's `expired` callback).
   */
  sweep(): number | undefined {
    const now = this.#now();
    this.#sql.exec(`DELETE FROM ${this.#records} WHERE expires_at <= ?`, now);
    this.#sql.exec(`DELETE FROM ${this.#sets} WHERE expires_at <= ?`, now);
    const next = this.#sql
      .exec<{ at: number | null }>(
        `SELECT MIN(at) AS at FROM (SELECT MIN(expires_at) AS at FROM ${this.#records}
           UNION ALL SELECT MIN(expires_at) AS at FROM ${this.#sets})`,
      )
      .one().at;
    return next === null ? undefined : next;
  }

  async close(): Promise<void> {}

  #live(key: string, now: number): (RecordRow & { bytes: number }) | undefined {
    const row = this.#sql
      .exec<RecordRow & { bytes: number }>(
        `SELECT value, version, bytes, expires_at FROM ${this.#records} WHERE key = ?`,
        key,
      )
      .toArray()[0];
    return row && row.expires_at > now ? row : undefined;
  }

  #makeRoom(bytes: number, newRow: boolean, now: number): void {
    const usage = this.#recordUsage;
    const fits = ({ n, bytes: used }: { n: number; bytes: number }): boolean =>
      (!newRow || n < this.#maxRecords) && used + bytes <= this.#maxBytes;
    if (fits(usage())) return;
    this.#sql.exec(`DELETE FROM ${this.#records} WHERE expires_at <= ?`, now);
    if (!fits(usage())) throw new RecordStoreFullError('The record store is full.');
  }
}

function snapshot<T>(row: RecordRow): VersionedRecord<T> {
  return { value: JSON.parse(row.value) as T, version: row.version };
}

function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('A record value must be JSON-serialisable.');
  return json;
}
