import type { RecordStore, VersionedRecord } from './record-store.ts';
import { RecordStoreFullError } from './record-store-full-error.ts';

/** Options of {@link MemoryRecordStore}. */
export interface MemoryRecordStoreOptions {
  /** Most live records kept at once. Default 100 000. */
  readonly maxRecords?: number;
  /** Clock in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

interface Entry {
  value: unknown;
  version: number;
  expiresAt: number;
}

/**
 * The embedded default {@link RecordStore}: one process's memory, bounded, with expiry checked on
 * every read and expired records swept when space is needed.
 *
 * @example
 * const records = new MemoryRecordStore({ maxRecords: 10_000 });
 */
export class MemoryRecordStore implements RecordStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxRecords: number;
  readonly #now: () => number;

  constructor(options: MemoryRecordStoreOptions = {}) {
    const maxRecords = options.maxRecords ?? 100_000;
    if (!Number.isInteger(maxRecords) || maxRecords < 1)
      throw new RangeError('maxRecords must be a positive integer.');
    this.#maxRecords = maxRecords;
    this.#now = options.now ?? Date.now;
  }

  /** Records currently held, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }

  #snapshot<T>(entry: Entry): VersionedRecord<T> {
    return { value: structuredClone(entry.value) as T, version: entry.version };
  }

  async create<T>(
    key: string,
    value: T,
    ttlMs: number,
  ): Promise<{ created: boolean; record: VersionedRecord<T> }> {
    const existing = this.#live(key);
    if (existing) return { created: false, record: this.#snapshot<T>(existing) };
    if (this.#entries.size >= this.#maxRecords) {
      this.#sweep();
      if (this.#entries.size >= this.#maxRecords)
        throw new RecordStoreFullError('The record store is full.');
    }
    const entry: Entry = {
      value: structuredClone(value),
      version: 1,
      expiresAt: this.#now() + ttlMs,
    };
    this.#entries.set(key, entry);
    return { created: true, record: this.#snapshot<T>(entry) };
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
    entry.value = structuredClone(value);
    entry.version += 1;
    entry.expiresAt = this.#now() + ttlMs;
    return this.#snapshot<T>(entry);
  }

  async delete(key: string, expectedVersion: number): Promise<boolean> {
    const entry = this.#live(key);
    if (!entry || entry.version !== expectedVersion) return false;
    this.#entries.delete(key);
    return true;
  }

  async list<T>(
    prefix: string,
    limit: number,
  ): Promise<Array<{ key: string; record: VersionedRecord<T> }>> {
    const found: Array<{ key: string; record: VersionedRecord<T> }> = [];
    for (const key of this.#entries.keys()) {
      if (found.length >= limit) break;
      if (!key.startsWith(prefix)) continue;
      const entry = this.#live(key);
      if (entry) found.push({ key, record: this.#snapshot<T>(entry) });
    }
    return found;
  }

  async close(): Promise<void> {}
}
