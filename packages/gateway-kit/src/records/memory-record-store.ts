import { type Refuse, refusalFor } from '../runtime/config-refusal.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import type { RecordStore, SetAddition, SetMember, VersionedRecord } from './record-store.ts';
import { RecordStoreFullError } from './record-store-full-error.ts';
import { type SetEntry, SortedSet } from './sorted-set.ts';

const refuse: Refuse = refusalFor('new MemoryRecordStore');

/**
 * Options of {@link MemoryRecordStore}.
 *
 * @example
 * const options: MemoryRecordStoreOptions = { maxRecords: 10_000, maxBytes: 16 * 1024 * 1024 };
 */
export interface MemoryRecordStoreOptions {
  /** Most live records kept at once. Default 100 000. */
  readonly maxRecords?: number;
  /** Most bytes of record values (as JSON) kept at once. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Clock in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

interface Entry {
  /** The value as JSON: compact, and copied out by parsing it. */
  json: string;
  version: number;
  expiresAt: number;
}

// Bytes a record costs besides its JSON (key, bookkeeping), and one set member.
const ENTRY_OVERHEAD = 96;
const MEMBER_BYTES = 64;

/**
 * The embedded default {@link RecordStore}: one process's memory, bounded in records and bytes,
 * with expiry checked on every read and expired records freed in expiry order (a time-ordered
 * index, so nothing walks the whole store).
 *
 * @example
 * const records = new MemoryRecordStore({ maxRecords: 10_000 });
 */
export class MemoryRecordStore implements RecordStore {
  readonly #entries = new Map<string, Entry>();
  /** Every record key by expiry: frees expired records without a scan. */
  #expiry = new ExpiryHeap();
  readonly #sets = new Map<string, SortedSet>();
  readonly #maxRecords: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: MemoryRecordStoreOptions = {}) {
    const maxRecords = options.maxRecords ?? 100_000;
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1)
      refuse('maxRecords', maxRecords, 'expected a positive integer.');
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
      refuse('maxBytes', maxBytes, 'expected a positive integer.');
    this.#maxRecords = maxRecords;
    this.#maxBytes = maxBytes;
    this.#now = options.now ?? (() => Date.now());
  }

  /** Records currently held, expired ones not yet freed included. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes currently held (record JSON, set members and bookkeeping). */
  get bytes(): number {
    return this.#bytes;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#forget(key, entry);
      return undefined;
    }
    return entry;
  }

  #forget(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.json.length + key.length + ENTRY_OVERHEAD;
  }

  /** Frees expired records, earliest expiry first, stopping at the first that is not due. */
  #sweep(now: number): void {
    while (this.#expiry.peekTime() <= now) {
      const due = this.#expiry.peekTime();
      const key = this.#expiry.pop()!;
      const entry = this.#entries.get(key);
      // Stale heap entries (the record was rewritten or deleted since) are just dropped.
      if (entry && entry.expiresAt === due) this.#forget(key, entry);
    }
  }

  #snapshot<T>(entry: Entry): VersionedRecord<T> {
    return { value: JSON.parse(entry.json) as T, version: entry.version };
  }

  #store(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
    this.#expiry.push(key, entry.expiresAt);
    // Rewrites and deletes leave stale heap entries behind until their time: keep them bounded.
    if (this.#expiry.size > 2 * this.#entries.size + 1_024) {
      const rebuilt = new ExpiryHeap();
      for (const [liveKey, live] of this.#entries) rebuilt.push(liveKey, live.expiresAt);
      this.#expiry = rebuilt;
    }
  }

  async create<T>(
    key: string,
    value: T,
    ttlMs: number,
  ): Promise<{
    /** `false` when a live record had the key already. */
    created: boolean;
    /** The record as stored: the new one, or the one that existed. */
    record: VersionedRecord<T>;
  }> {
    const existing = this.#live(key);
    if (existing) return { created: false, record: this.#snapshot<T>(existing) };
    const json = encode(value);
    const cost = json.length + key.length + ENTRY_OVERHEAD;
    const now = this.#now();
    // Expired records are freed as time passes (the heap's front only), not only when full.
    this.#sweep(now);
    if (this.#entries.size >= this.#maxRecords || this.#bytes + cost > this.#maxBytes) {
      this.#sweep(now);
      if (this.#entries.size >= this.#maxRecords || this.#bytes + cost > this.#maxBytes)
        throw new RecordStoreFullError('The record store is full.');
    }
    const entry: Entry = { json, version: 1, expiresAt: now + ttlMs };
    this.#store(key, entry);
    this.#bytes += cost;
    return { created: true, record: { value: JSON.parse(json) as T, version: 1 } };
  }

  async get<T>(key: string): Promise<VersionedRecord<T> | undefined> {
    const entry = this.#live(key);
    return entry ? this.#snapshot<T>(entry) : undefined;
  }

  async replace<T>(
    key: string,
    expectedVersion: number,
    value: T,
    ttlMs: number,
  ): Promise<VersionedRecord<T> | undefined> {
    const entry = this.#live(key);
    if (!entry || entry.version !== expectedVersion) return undefined;
    const json = encode(value);
    const growth = json.length - entry.json.length;
    if (growth > 0 && this.#bytes + growth > this.#maxBytes) {
      this.#sweep(this.#now());
      if (this.#bytes + growth > this.#maxBytes)
        throw new RecordStoreFullError('The record store is full.');
    }
    this.#bytes += growth;
    entry.json = json;
    entry.version += 1;
    entry.expiresAt = this.#now() + ttlMs;
    this.#store(key, entry);
    return { value: JSON.parse(json) as T, version: entry.version };
  }

  async delete(key: string, expectedVersion: number): Promise<boolean> {
    const entry = this.#live(key);
    if (!entry || entry.version !== expectedVersion) return false;
    this.#forget(key, entry);
    return true;
  }

  async addToSet(set: string, member: string, ttlMs: number, maxSize?: number): Promise<boolean> {
    const now = this.#now();
    const members = this.#sets.get(set);
    if (members) this.#prune(members, now);
    if (members?.has(member)) {
      members.add(member, now + ttlMs);
      return true;
    }
    if (maxSize !== undefined && (members?.size ?? 0) >= maxSize) return false;
    if (this.#bytes + MEMBER_BYTES > this.#maxBytes) {
      this.#sweep(now);
      if (this.#bytes + MEMBER_BYTES > this.#maxBytes)
        throw new RecordStoreFullError('The record store is full.');
    }
    this.#put(set, member, now + ttlMs);
    return true;
  }

  /** Adds (or renews) a member, creating its set, and counts the bytes a new one takes. */
  #put(set: string, member: string, expiresAt: number): void {
    let members = this.#sets.get(set);
    if (!members) {
      members = new SortedSet();
      this.#sets.set(set, members);
    }
    const before = members.size;
    members.add(member, expiresAt);
    this.#bytes += (members.size - before) * MEMBER_BYTES;
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    const members = this.#sets.get(set);
    if (!members) return;
    if (members.delete(member)) this.#bytes -= MEMBER_BYTES;
    this.#prune(members, this.#now());
    if (members.size === 0) this.#sets.delete(set);
  }

  async addToSets(entries: readonly SetAddition[]): Promise<number> {
    const now = this.#now();
    // Checked first, written after: all or none.
    const fresh = new Map<string, Set<string>>();
    for (const [index, { set, member, maxSize }] of entries.entries()) {
      const members = this.#sets.get(set);
      if (members) this.#prune(members, now);
      if (members?.has(member)) continue;
      const adding = fresh.get(set);
      if (adding?.has(member)) continue;
      if (maxSize !== undefined && (members?.size ?? 0) + (adding?.size ?? 0) >= maxSize)
        return index;
      if (adding) adding.add(member);
      else fresh.set(set, new Set([member]));
    }
    let count = 0;
    for (const adding of fresh.values()) count += adding.size;
    if (this.#bytes + count * MEMBER_BYTES > this.#maxBytes) {
      this.#sweep(now);
      if (this.#bytes + count * MEMBER_BYTES > this.#maxBytes)
        throw new RecordStoreFullError('The record store is full.');
    }
    for (const { set, member, ttlMs } of entries) this.#put(set, member, now + ttlMs);
    return -1;
  }

  async removeFromSets(entries: readonly SetMember[]): Promise<void> {
    for (const { set, member } of entries) await this.removeFromSet(set, member);
  }

  async rangeOfSet(set: string, limit: number, after?: SetEntry): Promise<SetEntry[]> {
    const members = this.#sets.get(set);
    if (!members || !(limit > 0)) return [];
    this.#prune(members, this.#now());
    return members.range(after, limit);
  }

  #prune(members: SortedSet, now: number): void {
    const before = members.size;
    members.prune(now);
    this.#bytes -= (before - members.size) * MEMBER_BYTES;
  }

  async close(): Promise<void> {}
}

function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('A record value must be JSON-serialisable.');
  return json;
}
