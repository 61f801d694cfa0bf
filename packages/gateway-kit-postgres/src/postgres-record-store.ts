import {
  checkOptionNames,
  type RecordStore,
  RecordStoreFullError,
  refusalFor,
  type SetAddition,
  type SetEntry,
  type SetMember,
  timerMs,
  type VersionedRecord,
} from '@svc/gateway-kit/store';
import {
  CONNECTION_OPTION_NAMES,
  lockClass,
  PostgresConnection,
  type PostgresConnectionOptions,
} from './postgres-connection.ts';

/**
 * Options of {@link PostgresRecordStore}.
 *
 * @example
 * const options: PostgresRecordStoreOptions = {
 *   connectionString: process.env.DATABASE_URL,
 *   schema: 'acme_gateway',
 * };
 */
export interface PostgresRecordStoreOptions extends PostgresConnectionOptions {
  /**
   * Most live records kept at once (idempotency keys and approvals, across all instances);
   * `create` beyond it rejects with `RecordStoreFullError` (503). A positive integer.
   * Default 1 000 000.
   */
  readonly maxRecords?: number;
  /**
   * How often expired records and set members are deleted (in batches of 500), in ms. Expired
   * rows are never returned meanwhile. `0` disables. Default 60 000.
   */
  readonly sweepIntervalMs?: number;
}

const DELETE_BATCH = 500;
const DELETE_PAGES = 10;

/** The names of {@link PostgresRecordStoreOptions}: any other is refused (a misspelt one would be ignored). */
const RECORD_STORE_OPTION_NAMES: readonly string[] = [
  ...CONNECTION_OPTION_NAMES,
  ...Object.keys({
    maxRecords: true,
    sweepIntervalMs: true,
  } satisfies Record<
    Exclude<keyof PostgresRecordStoreOptions, keyof PostgresConnectionOptions>,
    true
  >),
];

/**
 * A `RecordStore` in PostgreSQL: the gateway's idempotency keys, approvals and quota sets,
 * shared by every instance on the same schema. Create is create-if-absent, replace and delete are
 * compare-and-set on `version`, each one statement; a record past its time to live is never
 * returned and is deleted by a batched sweep. Values are stored as JSON text, so callers always
 * get fresh copies. While the database is unreachable, calls reject with `StoreUnavailableError`
 * (`retryable: true`, a 503 at the gateway) within `commandTimeoutMs`.
 *
 * @example
 * const records = new PostgresRecordStore({ connectionString: process.env.DATABASE_URL });
 * const { created } = await records.create('idem:abc', { state: 'in_progress' }, 60_000);
 * await records.close();
 */
export class PostgresRecordStore implements RecordStore {
  readonly #db: PostgresConnection;
  readonly #s: string;
  readonly #maxRecords: number;
  readonly #lockClass: number;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: PostgresRecordStoreOptions = {}) {
    checkOptionNames('new PostgresRecordStore', options, RECORD_STORE_OPTION_NAMES);
    const maxRecords = options.maxRecords ?? 1_000_000;
    const refuse = refusalFor('new PostgresRecordStore');
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1)
      refuse('maxRecords', maxRecords, 'expected a positive integer.');
    const sweepIntervalMs = timerMs(
      refuse,
      'sweepIntervalMs',
      options.sweepIntervalMs ?? 60_000,
      true,
    );
    this.#db = new PostgresConnection(options, 'new PostgresRecordStore');
    this.#s = this.#db.schema;
    this.#maxRecords = maxRecords;
    // Advisory locks of one schema's sets never collide with another schema's.
    this.#lockClass = lockClass('sets', options.schema);
    if (sweepIntervalMs > 0) {
      this.#sweepTimer = setInterval(() => {
        this.deleteExpired().catch((error) => this.#db.report(error));
      }, sweepIntervalMs);
      this.#sweepTimer.unref();
    }
  }

  async create<T>(
    key: string,
    value: T,
    ttlMs: number,
  ): Promise<{ readonly created: boolean; readonly record: VersionedRecord<T> }> {
    const [row] = await this.#db.query<{ created: number; value: string; version: number }>(
      `SELECT * FROM ${this.#s}.create_record($1, $2, $3, $4)`,
      [key, encode(value), ttl(ttlMs), this.#maxRecords],
    );
    if (row!.created === -1) throw new RecordStoreFullError('The record store is full.');
    return {
      created: row!.created === 1,
      record: { value: JSON.parse(row!.value) as T, version: row!.version },
    };
  }

  async get<T>(key: string): Promise<VersionedRecord<T> | undefined> {
    const [row] = await this.#db.query<{ value: string; version: number }>(
      `SELECT value, version FROM ${this.#s}.records
       WHERE key = $1 AND expires_at > clock_timestamp()`,
      [key],
    );
    return row ? { value: JSON.parse(row.value) as T, version: row.version } : undefined;
  }

  async replace<T>(
    key: string,
    expectedVersion: number,
    value: T,
    ttlMs: number,
  ): Promise<VersionedRecord<T> | undefined> {
    const json = encode(value);
    const [row] = await this.#db.query<{ version: number }>(
      `UPDATE ${this.#s}.records
       SET value = $3, version = version + 1,
           expires_at = clock_timestamp() + make_interval(secs => $4 / 1000.0)
       WHERE key = $1 AND version = $2 AND expires_at > clock_timestamp()
       RETURNING version`,
      [key, expectedVersion, json, ttl(ttlMs)],
    );
    return row ? { value: JSON.parse(json) as T, version: row.version } : undefined;
  }

  async delete(key: string, expectedVersion: number): Promise<boolean> {
    const [row] = await this.#db.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM ${this.#s}.records
         WHERE key = $1 AND version = $2 AND expires_at > clock_timestamp()
         RETURNING 1),
       counted AS (
         UPDATE ${this.#s}.counts SET n = n - (SELECT count(*) FROM gone)
         WHERE name = 'records' AND shard = pg_backend_pid() % 16)
       SELECT count(*)::int AS n FROM gone`,
      [key, expectedVersion],
    );
    return row!.n === 1;
  }

  async addToSet(set: string, member: string, ttlMs: number, maxSize?: number): Promise<boolean> {
    return (await this.#addToSets([{ set, member, ttlMs, maxSize }])) === -1;
  }

  /**
   * Adds every entry, all or none, in one statement (`add_to_sets`: a job's quota claims in one
   * round trip). Resolves `-1`, or the index of the first entry that did not fit, having added none.
   */
  async addToSets(entries: readonly SetAddition[]): Promise<number> {
    if (entries.length === 0) return -1;
    return this.#addToSets(entries);
  }

  /** One call of `add_to_sets` (migration 003): all or none, in one statement. */
  async #addToSets(entries: readonly SetAddition[]): Promise<number> {
    const [row] = await this.#db.query<{ refused: number }>(
      `SELECT ${this.#s}.add_to_sets($1, $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS refused`,
      [
        this.#lockClass,
        entries.map((entry) => entry.set),
        entries.map((entry) => entry.member),
        entries.map((entry) => ttl(entry.ttlMs)),
        entries.map((entry) => cap(entry.maxSize)),
      ],
    );
    return row!.refused;
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.#db.query(`DELETE FROM ${this.#s}.set_members WHERE set_name = $1 AND member = $2`, [
      set,
      member,
    ]);
  }

  /** Removes every entry in one statement (a job's quota releases: one round trip). */
  async removeFromSets(entries: readonly SetMember[]): Promise<void> {
    if (entries.length === 0) return;
    await this.#db.query(
      `DELETE FROM ${this.#s}.set_members m
       USING unnest($1::text[], $2::text[]) AS e(set_name, member)
       WHERE m.set_name = e.set_name AND m.member = e.member`,
      [entries.map((entry) => entry.set), entries.map((entry) => entry.member)],
    );
  }

  async rangeOfSet(set: string, limit: number, after?: SetEntry): Promise<SetEntry[]> {
    if (!(limit > 0)) return [];
    const rows = await this.#db.query<{ member: string; expires_at: string }>(
      `SELECT member, expires_at FROM ${this.#s}.set_members
       WHERE set_name = $1
         AND expires_at > floor(extract(epoch FROM clock_timestamp()) * 1000)
         AND ($3::bigint IS NULL OR (expires_at, member) > ($3::bigint, $4::text COLLATE "C"))
       ORDER BY expires_at, member
       LIMIT $2`,
      [set, Math.trunc(limit), after ? after.expiresAt : null, after?.member ?? ''],
    );
    return rows.map((row) => ({ member: row.member, expiresAt: Number(row.expires_at) }));
  }

  /**
   * Deletes expired records and set members in batches of 500 rows (each its own short
   * transaction, skipping locked rows). The sweeper calls it every `sweepIntervalMs`. Returns how
   * many records it deleted.
   *
   * @example
   * await records.deleteExpired();
   */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (let page = 0; page < DELETE_PAGES; page++) {
      const [row] = await this.#db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM ${this.#s}.records WHERE key IN (
             SELECT key FROM ${this.#s}.records WHERE expires_at <= now()
             ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING 1),
         counted AS (
           UPDATE ${this.#s}.counts SET n = n - (SELECT count(*) FROM gone)
           WHERE name = 'records' AND shard = pg_backend_pid() % 16)
         SELECT count(*)::int AS n FROM gone`,
        [DELETE_BATCH],
      );
      deleted += row!.n;
      if (row!.n < DELETE_BATCH) break;
    }
    for (let page = 0; page < DELETE_PAGES; page++) {
      const [row] = await this.#db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM ${this.#s}.set_members WHERE ctid IN (
             SELECT ctid FROM ${this.#s}.set_members
             WHERE expires_at <= floor(extract(epoch FROM now()) * 1000)
             LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [DELETE_BATCH],
      );
      if (row!.n < DELETE_BATCH) break;
    }
    return deleted;
  }

  /**
   * Fail-fast start-up: resolves once the database answers and the schema is migrated.
   *
   * @example
   * await new PostgresRecordStore({ connectionString: process.env.DATABASE_URL }).ready();
   */
  async ready(): Promise<void> {
    const [row] = await this.#db.query<{ present: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AS present`,
      [`${this.#s}.records`],
    );
    if (!row?.present)
      throw new Error(
        `The schema ${this.#s} has no gateway tables: run migrate() or svc-gateway-postgres migrate first.`,
      );
  }

  /** Stops the sweeper and releases the pool (unless you passed your own `pool`). */
  async close(): Promise<void> {
    clearInterval(this.#sweepTimer);
    await this.#db.close();
  }
}

function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('A record value must be JSON-serialisable.');
  return json;
}

/** A set's cap as `add_to_sets` takes it: `null` for none; 0 or less admits no new member. */
function cap(maxSize: number | undefined): number | null {
  return maxSize === undefined ? null : Math.max(0, Math.ceil(maxSize));
}

/** Whole milliseconds ≥ 1; a shorter time to live expires at once. */
function ttl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs)) throw new RangeError(`ttlMs must be a finite number, got ${ttlMs}.`);
  return Math.max(1, Math.ceil(ttlMs));
}
