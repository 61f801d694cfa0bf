/** One member of a time-ordered set and the time (store clock, ms) it stops counting. */
export interface SetEntry {
  /** The member. */
  readonly member: string;
  /** When the member stops counting, in ms on the store's clock. */
  readonly expiresAt: number;
}

const before = (a: SetEntry, b: SetEntry): boolean =>
  a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.member < b.member);

/**
 * Members ordered by expiry, then by member (the order Redis keeps a sorted set in), for the
 * memory store's quota and index sets. Lookup by member is a Map; the order is a sorted array,
 * so adding is a binary search plus one move, and expiring or paging reads only what it returns.
 */
export class SortedSet {
  readonly #byMember = new Map<string, number>();
  #entries: SetEntry[] = [];

  get size(): number {
    return this.#entries.length;
  }

  /** Drops the members whose time ran out (they are at the front). */
  prune(now: number): void {
    let expired = 0;
    while (expired < this.#entries.length && this.#entries[expired]!.expiresAt <= now) {
      this.#byMember.delete(this.#entries[expired]!.member);
      expired += 1;
    }
    if (expired > 0) this.#entries = this.#entries.slice(expired);
  }

  has(member: string): boolean {
    return this.#byMember.has(member);
  }

  /** Adds `member`, or moves an existing one to `expiresAt` if that is later (never earlier). */
  add(member: string, expiresAt: number): void {
    const current = this.#byMember.get(member);
    if (current !== undefined) {
      if (current >= expiresAt) return;
      this.delete(member);
    }
    const entry = { member, expiresAt };
    this.#entries.splice(this.#indexAfter(entry), 0, entry);
    this.#byMember.set(member, expiresAt);
  }

  delete(member: string): boolean {
    const expiresAt = this.#byMember.get(member);
    if (expiresAt === undefined) return false;
    const index = this.#indexAfter({ member, expiresAt }) - 1;
    this.#entries.splice(index, 1);
    this.#byMember.delete(member);
    return true;
  }

  /** Up to `limit` entries strictly after `after` (or from the start). */
  range(after: SetEntry | undefined, limit: number): SetEntry[] {
    const start = after ? this.#indexAfter(after) : 0;
    return this.#entries.slice(start, start + limit);
  }

  /** The index of the first entry ordered after `entry`. */
  #indexAfter(entry: SetEntry): number {
    let low = 0;
    let high = this.#entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(entry, this.#entries[middle]!)) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
