import {
  addSetBySet,
  checkOptionNames,
  type RecordStore,
  RecordStoreFullError,
  refusalFor,
  type SetAddition,
  type SetEntry,
  type SetMember,
  type VersionedRecord,
} from '@svc/gateway-kit/store';
import {
  bucketShare,
  checkBuckets,
  checkPrefix,
  defaultBuckets,
  defaultPrefix,
  KeyLayout,
} from './key-layout.ts';
import {
  ADD_TO_SETS,
  CREATE_RECORD,
  DELETE_RECORD,
  RANGE_OF_SET,
  REPLACE_RECORD,
} from './record-scripts.ts';
import {
  CONNECTION_OPTION_NAMES,
  connectsToCluster,
  RedisConnection,
  type RedisConnectionOptions,
} from './redis-connection.ts';

/**
 * Options of {@link RedisRecordStore}.
 *
 * @example
 * const options: RedisRecordStoreOptions = { url: process.env.REDIS_URL, prefix: 'acme:gw:' };
 */
export interface RedisRecordStoreOptions extends RedisConnectionOptions {
  /**
   * Prefix of every key. Instances that share records use the same prefix. Default `svc:gw:`. It
   * must not contain `{` or `}`: the store adds a hash tag per bucket.
   */
  readonly prefix?: string;
  /**
   * How many buckets records are spread over (1 … 1024): a record and its expiry-index entry
   * live in the bucket of its key, one hash slot each on a Redis Cluster. Part of the key layout
   * (every instance uses the same value). Default 64 on a Redis Cluster, 1 on one node.
   */
  readonly buckets?: number;
  /**
   * Most live records kept at once (idempotency keys and approvals, across all instances), split
   * into equal per-bucket shares (`maxRecords / buckets` each, so the total never exceeds it);
   * `create` beyond its bucket's share rejects with `RecordStoreFullError` (503). A positive
   * integer, at least `buckets`. Default 1 000 000.
   */
  readonly maxRecords?: number;
}

/**
 * A `RecordStore` in Redis: the gateway's idempotency keys and approvals, shared by every
 * instance with the same Redis and key prefix. Each record is a hash with a PX expiry; create,
 * replace and delete are Lua scripts (atomic create-if-absent and compare-and-set on `version`).
 * Values are stored as JSON, so callers always get fresh copies. While Redis is unreachable,
 * calls reject with `StoreUnavailableError` (`retryable: true`, a 503 at the gateway).
 *
 * @example
 * const records = new RedisRecordStore({ url: 'redis://127.0.0.1:6379' });
 * const { created } = await records.create('idem:abc', { state: 'in_progress' }, 60_000);
 * await records.close();
 */
export class RedisRecordStore implements RecordStore {
  readonly #redis: RedisConnection;
  readonly #keys: KeyLayout;
  readonly #maxRecords: number;

  constructor(options: RedisRecordStoreOptions = {}) {
    checkOptionNames('new RedisRecordStore', options, RECORD_STORE_OPTION_NAMES);
    const maxRecords = options.maxRecords ?? 1_000_000;
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1)
      refusalFor('new RedisRecordStore')('maxRecords', maxRecords, 'expected a positive integer.');
    this.#maxRecords = maxRecords;
    const refuse = refusalFor('new RedisRecordStore');
    const buckets = options.buckets ?? defaultBuckets(connectsToCluster(options));
    checkBuckets(refuse, buckets, { maxRecords });
    const prefix = options.prefix ?? defaultPrefix();
    // Before connecting: a refused store must leave no connection behind.
    checkPrefix(refuse, prefix);
    this.#redis = new RedisConnection(options, 'new RedisRecordStore');
    this.#keys = new KeyLayout(prefix, buckets);
  }

  async create<T>(
    key: string,
    value: T,
    ttlMs: number,
  ): Promise<{ readonly created: boolean; readonly record: VersionedRecord<T> }> {
    const bucket = this.#keys.bucketOf(key);
    const reply = (await this.#redis.script(CREATE_RECORD, this.#recordKeys(key), [
      key,
      this.#keys.base(bucket),
      encode(value),
      ttl(ttlMs),
      String(bucketShare(this.#maxRecords, this.#keys.buckets, bucket)),
    ])) as [number, string?, number?];
    if (reply[0] === -1) throw new RecordStoreFullError('The record store is full.');
    return {
      created: reply[0] === 1,
      record: { value: JSON.parse(reply[1]!) as T, version: Number(reply[2]) },
    };
  }

  async get<T>(key: string): Promise<VersionedRecord<T> | undefined> {
    const [value, version] = await this.#redis.call((client) =>
      client.hmGet(this.#recordKey(key), ['value', 'version']),
    );
    if (value == null || version == null) return undefined;
    return { value: JSON.parse(value) as T, version: Number(version) };
  }

  async replace<T>(
    key: string,
    expectedVersion: number,
    value: T,
    ttlMs: number,
  ): Promise<VersionedRecord<T> | undefined> {
    const json = encode(value);
    const version = await this.#redis.script(REPLACE_RECORD, this.#recordKeys(key), [
      key,
      this.#keys.baseOf(key),
      String(expectedVersion),
      json,
      ttl(ttlMs),
    ]);
    if (version == null) return undefined;
    return { value: JSON.parse(json) as T, version: Number(version) };
  }

  async delete(key: string, expectedVersion: number): Promise<boolean> {
    const deleted = await this.#redis.script(DELETE_RECORD, this.#recordKeys(key), [
      key,
      this.#keys.baseOf(key),
      String(expectedVersion),
    ]);
    return Number(deleted) === 1;
  }

  async addToSet(set: string, member: string, ttlMs: number, maxSize?: number): Promise<boolean> {
    return (await this.#addToSets([set], [{ set, member, ttlMs, maxSize }])) === -1;
  }

  /**
   * Adds every entry, all or none, in one script (a job's quota claims: one round trip). On a
   * Redis Cluster the sets are in different slots: one script per set, in order, and what the
   * earlier ones added is taken back when a later one refuses (`addSetBySet` of the kit). There,
   * a member that was already in an earlier set is taken back too (removed): the gateway's quota
   * claims name new members only.
   */
  async addToSets(entries: readonly SetAddition[]): Promise<number> {
    const sets = [...new Set(entries.map((entry) => entry.set))];
    if (sets.length <= 1 || !this.#redis.cluster) return this.#addToSets(sets, entries);
    return addSetBySet(
      entries,
      (group) => this.#addToSets([group[0]!.set], group),
      (added) => this.removeFromSets(added),
    );
  }

  async #addToSets(sets: readonly string[], entries: readonly SetAddition[]): Promise<number> {
    if (entries.length === 0) return -1;
    const index = new Map(sets.map((set, i) => [set, String(i + 1)]));
    const args: string[] = [];
    for (const { set, member, ttlMs, maxSize } of entries)
      args.push(index.get(set)!, member, ttl(ttlMs), cap(maxSize));
    const refused = await this.#redis.script(
      ADD_TO_SETS,
      sets.map((set) => this.#setKey(set)),
      args,
    );
    return Number(refused);
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.#redis.call((client) => client.zRem(this.#setKey(set), member));
  }

  /** One `ZREM` per set, all at once (a job's quota releases: one round trip). */
  async removeFromSets(entries: readonly SetMember[]): Promise<void> {
    const bySet = new Map<string, string[]>();
    for (const { set, member } of entries) {
      const members = bySet.get(set);
      if (members) members.push(member);
      else bySet.set(set, [member]);
    }
    await Promise.all(
      [...bySet].map(([set, members]) => {
        const key = this.#setKey(set);
        return this.#redis.send(key, ['ZREM', key, ...members]);
      }),
    );
  }

  async rangeOfSet(set: string, limit: number, after?: SetEntry): Promise<SetEntry[]> {
    if (!(limit > 0)) return [];
    const flat = (await this.#redis.script(
      RANGE_OF_SET,
      [this.#setKey(set)],
      [String(Math.trunc(limit)), after ? String(after.expiresAt) : '', after?.member ?? ''],
    )) as string[];
    const entries: SetEntry[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      entries.push({ member: flat[i]!, expiresAt: Number(flat[i + 1]) });
    return entries;
  }

  /**
   * Fail-fast start-up: resolves once Redis answers; rejects with a `StoreUnavailableError` naming
   * the URL (never its password) when it cannot be reached within `connectTimeoutMs`. Not calling
   * it starts degraded: calls answer `StoreUnavailableError` (503) until Redis is reachable, and
   * the store keeps reconnecting by itself.
   *
   * @example
   * const records = new RedisRecordStore({ url: process.env.REDIS_URL });
   * await records.ready(); // throws: Cannot reach Redis at redis://:***@cache:6379 within 2000 ms.
   */
  ready(): Promise<void> {
    return this.#redis.ready();
  }

  /**
   * Closes the connection the store opened (never a `client` you passed), whenever it is called:
   * also right after the constructor, while it is still being opened. Resolves once it is
   * released (within about `commandTimeoutMs`); a second call returns the same promise.
   */
  close(): Promise<void> {
    return this.#redis.close();
  }

  /** A set is one key (its own slot on a cluster): every script on it touches it alone. */
  #setKey(set: string): string {
    return `${this.#keys.prefix}set:${set}`;
  }

  #recordKey(key: string): string {
    return `${this.#keys.baseOf(key)}rec:${key}`;
  }

  /** KEYS of the record scripts: the record's hash and its bucket's expiry index. */
  #recordKeys(key: string): string[] {
    return [this.#recordKey(key), `${this.#keys.baseOf(key)}rec-expiry`];
  }
}

function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('A record value must be JSON-serialisable.');
  return json;
}

/** A set's cap as ADD_TO_SETS takes it: `-1` for none; 0 or less admits no new member. */
function cap(maxSize: number | undefined): string {
  return maxSize === undefined ? '-1' : String(Math.max(0, maxSize));
}

/** PX takes whole milliseconds ≥ 1; a shorter time to live expires as soon as Redis allows. */
function ttl(ttlMs: number): string {
  if (!Number.isFinite(ttlMs)) throw new RangeError(`ttlMs must be a finite number, got ${ttlMs}.`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}

/** The names of {@link RedisRecordStoreOptions}: any other is refused (a misspelt one would be ignored). */
const RECORD_STORE_OPTION_NAMES: readonly string[] = [
  ...CONNECTION_OPTION_NAMES,
  ...Object.keys({
    prefix: true,
    buckets: true,
    maxRecords: true,
  } satisfies Record<Exclude<keyof RedisRecordStoreOptions, keyof RedisConnectionOptions>, true>),
];
