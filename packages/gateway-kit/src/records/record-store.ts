import type { SetEntry } from './sorted-set.ts';

export type { SetEntry } from './sorted-set.ts';

/** A stored record with its compare-and-set version (starts at 1, grows by one per write). */
export interface VersionedRecord<T> {
  /** The stored value (a copy). */
  readonly value: T;
  /** The compare-and-set version to pass to `replace` or `delete`. */
  readonly version: number;
}

/**
 * One member to add with {@link RecordStore.addToSets}: as `addToSet(set, member, ttlMs, maxSize)`.
 *
 * @example
 * const claim: SetAddition = { set: 'quota:activeJobs:p1', member: 'job_1', ttlMs: 60_000, maxSize: 100 };
 */
export interface SetAddition {
  /** Key of the set. */
  readonly set: string;
  /** The member to add. */
  readonly member: string;
  /** How long the member counts, in ms. */
  readonly ttlMs: number;
  /** Most live members the set may hold for a new member to be added; no cap when absent. */
  readonly maxSize?: number | undefined;
}

/**
 * One member to remove with {@link RecordStore.removeFromSets}.
 *
 * @example
 * const release: SetMember = { set: 'quota:activeJobs:p1', member: 'job_1' };
 */
export interface SetMember {
  /** Key of the set. */
  readonly set: string;
  /** The member to remove. */
  readonly member: string;
}

/**
 * Where the gateway keeps idempotency and approval records: small JSON values under string keys,
 * each with a time to live. Any adapter must keep these guarantees (the record store conformance
 * suite in `@svc/gateway-kit/testing` checks them):
 *
 * - `create` is atomic create-if-absent: of racing creates of one key, exactly one sees `created: true`.
 * - `replace` is compare-and-set on `version`; a stale version changes nothing.
 * - A record is never returned after its time to live ran out.
 * - Values are copied in and out: callers cannot change stored state by mutating objects.
 * - Sets (`addToSet`, `removeFromSet`, `rangeOfSet`) are time-ordered sets of short ids, used for
 *   per-principal quotas and the approvals index: a member stops counting once its time to live
 *   ran out; `addToSet` with `maxSize` is atomic (racing adds never exceed it); members are kept
 *   in expiry order (ties by member), and `rangeOfSet` reads only what it returns.
 */
export interface RecordStore {
  /** Stores `value` under `key` for `ttlMs` unless a live record has that key (then answers it). */
  create<T>(
    key: string,
    value: T,
    ttlMs: number,
  ): Promise<{
    /** `false` when a live record had the key already. */
    readonly created: boolean;
    /** The record as stored: the new one, or the one that existed. */
    readonly record: VersionedRecord<T>;
  }>;
  /** The live record under `key`, or `undefined` when there is none or its time to live ran out. */
  get<T>(key: string): Promise<VersionedRecord<T> | undefined>;
  /** Replaces the value if the stored version is `expectedVersion`; `undefined` on conflict or absence. */
  replace<T>(
    key: string,
    expectedVersion: number,
    value: T,
    ttlMs: number,
  ): Promise<VersionedRecord<T> | undefined>;
  /** Deletes the record if the stored version is `expectedVersion`; whether it did. */
  delete(key: string, expectedVersion: number): Promise<boolean>;
  /**
   * Adds `member` to `set` for `ttlMs` (an existing member keeps the later of its two expiries).
   * With `maxSize`, a new member is refused — `false` — when the set already holds that many live
   * members; an existing member is always accepted. `maxSize` is a cap: `0` (or less) admits no
   * new member, it never means "unbounded" (leave it out for a set without a cap).
   */
  addToSet(set: string, member: string, ttlMs: number, maxSize?: number): Promise<boolean>;
  /** Removes `member` from `set` (nothing happens when it is not there). */
  removeFromSet(set: string, member: string): Promise<void>;
  /**
   * Optional: adds every entry as `addToSet` would, all or none, in one step (a job's quota claims
   * in one round trip). Each entry's `maxSize` counts the entries before it in the call. Resolves
   * `-1` when every entry was added, else the index of the first entry that did not fit, having
   * added none. Without it the gateway calls `addToSet` per set and takes back what it added (see
   * `addToSets` in `@svc/gateway-kit/store`).
   */
  addToSets?(entries: readonly SetAddition[]): Promise<number>;
  /** Optional: removes every entry, as `removeFromSet` would, in one step. */
  removeFromSets?(entries: readonly SetMember[]): Promise<void>;
  /** Up to `limit` live members of `set` in expiry order, strictly after `after` when given. */
  rangeOfSet(set: string, limit: number, after?: SetEntry): Promise<SetEntry[]>;
  /** Releases timers and connections. */
  close(): Promise<void>;
}
