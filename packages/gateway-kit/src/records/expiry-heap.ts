/**
 * Keys by expiry, earliest first: a binary min-heap with lazy deletion. A key rewritten with a new
 * expiry is pushed again; its older entries are recognised as stale when they surface (the caller
 * checks the key's current expiry), so a write costs O(log n) and never moves the whole index.
 */
export class ExpiryHeap {
  readonly #at: number[] = [];
  readonly #keys: string[] = [];

  get size(): number {
    return this.#at.length;
  }

  push(key: string, expiresAt: number): void {
    const at = this.#at;
    const keys = this.#keys;
    let i = at.length;
    at.push(expiresAt);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at[parent]! <= expiresAt) break;
      at[i] = at[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    at[i] = expiresAt;
    keys[i] = key;
  }

  /** The earliest entry's expiry, or `Infinity` when empty. */
  peekTime(): number {
    return this.#at.length > 0 ? this.#at[0]! : Number.POSITIVE_INFINITY;
  }

  /** Removes and returns the earliest entry's key (check `peekTime()` first). */
  pop(): string | undefined {
    const at = this.#at;
    const keys = this.#keys;
    if (at.length === 0) return undefined;
    const top = keys[0];
    const lastAt = at.pop()!;
    const lastKey = keys.pop()!;
    const n = at.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && at[right]! < at[left]! ? right : left;
        if (at[child]! >= lastAt) break;
        at[i] = at[child]!;
        keys[i] = keys[child]!;
        i = child;
      }
      at[i] = lastAt;
      keys[i] = lastKey;
    }
    return top;
  }
}
