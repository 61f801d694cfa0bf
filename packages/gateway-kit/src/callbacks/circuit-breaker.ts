/**
 * How an attempt went, as far as the destination's reachability is concerned: `failure` for no
 * response (timeout, network or DNS error), `success` for any response (5xx included),
 * `neutral` when nothing was learnt (aborted, or refused before anything was sent).
 *
 * @example
 * const health: AttemptHealth = response ? 'success' : 'failure';
 */
export type AttemptHealth = 'success' | 'failure' | 'neutral';

/**
 * What {@link CircuitBreaker.check} says about a destination right now.
 * - `closed`: requests may go;
 * - `open`: none may go before `until` (ms since the epoch);
 * - `half-open`: the cooldown is over, one probe may go;
 * - `probing`: the probe is in flight; wait for {@link CircuitBreaker.changed}.
 *
 * @example
 * const state: CircuitState = { kind: 'open', until: Date.now() + 30_000 };
 */
export type CircuitState =
  | { readonly kind: 'closed' }
  | { readonly kind: 'open'; readonly until: number }
  | { readonly kind: 'half-open' }
  | { readonly kind: 'probing' };

/**
 * Settings of a {@link CircuitBreaker}.
 *
 * @example
 * const options: CircuitBreakerOptions = { failureThreshold: 5, cooldownMs: 30_000, maxDestinations: 1_000 };
 */
export interface CircuitBreakerOptions {
  /** Consecutive failed attempts that open a destination's circuit. */
  readonly failureThreshold: number;
  /** How long an open circuit stays open before one probe may go. */
  readonly cooldownMs: number;
  /** Destinations remembered at most; least recently used closed ones are forgotten first. */
  readonly maxDestinations: number;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

interface Entry {
  /** Consecutive failed attempts. */
  failures: number;
  /** 0 while closed; otherwise when the cooldown ends. */
  openUntil: number;
  /** A probe attempt is in flight. */
  probing: boolean;
  /** Resolvers of {@link CircuitBreaker.changed}. */
  listeners: Array<() => void>;
}

/**
 * Per-destination circuit breaker for callback attempts. After `failureThreshold` consecutive
 * failed attempts a destination is open for `cooldownMs`: nothing may be sent to it. Then it is
 * half-open: exactly one probe goes; a success closes it, a failure opens it again. Only
 * destinations with failures are remembered, at most `maxDestinations` of them. Internal: used
 * by the dispatcher's delivery limiter.
 *
 * @example
 * const breaker = new CircuitBreaker({ failureThreshold: 5, cooldownMs: 30_000, maxDestinations: 1_000 });
 * const pass = breaker.tryPass('https://hooks.example.com'); // 'pass' | 'probe' | 'blocked'
 * if (pass !== 'blocked') breaker.record('https://hooks.example.com', 'failure', pass === 'probe');
 */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  readonly #now: () => number;
  /** In least-recently-used order: a touched entry moves to the end. */
  readonly #entries = new Map<string, Entry>();

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Destinations remembered (those with failures, open or half-open). */
  get size(): number {
    return this.#entries.size;
  }

  /** The state of `destination` now; changes nothing. */
  check(destination: string): CircuitState {
    const entry = this.#entries.get(destination);
    if (!entry || entry.openUntil === 0) return { kind: 'closed' };
    if (this.#now() < entry.openUntil) return { kind: 'open', until: entry.openUntil };
    return entry.probing ? { kind: 'probing' } : { kind: 'half-open' };
  }

  /**
   * Asks to send one attempt now: `pass` while closed, `probe` when this attempt becomes the
   * half-open probe (report it to {@link record} with `probe: true`), else `blocked`.
   */
  tryPass(destination: string): 'pass' | 'probe' | 'blocked' {
    const state = this.check(destination);
    if (state.kind === 'closed') return 'pass';
    if (state.kind !== 'half-open') return 'blocked';
    const entry = this.#entries.get(destination) as Entry;
    entry.probing = true;
    return 'probe';
  }

  /** Records how an attempt that {@link tryPass} let through went. */
  record(destination: string, health: AttemptHealth, probe: boolean): void {
    const entry = this.#entries.get(destination);
    if (health === 'success') {
      if (entry) this.#forget(destination, entry);
      return;
    }
    if (health === 'neutral') {
      if (entry && probe) {
        entry.probing = false;
        notify(entry);
      }
      return;
    }
    const current = entry ?? this.#remember(destination);
    this.#touch(destination, current);
    current.failures += 1;
    if (probe) {
      current.probing = false;
      current.openUntil = this.#now() + this.#options.cooldownMs;
      notify(current);
    } else if (current.openUntil === 0 && current.failures >= this.#options.failureThreshold) {
      current.openUntil = this.#now() + this.#options.cooldownMs;
    }
  }

  /** Resolves at the next change of `destination`'s probe (it ended) or when it is forgotten. */
  changed(destination: string): Promise<void> {
    const entry = this.#entries.get(destination);
    if (!entry) return Promise.resolve();
    return new Promise((resolve) => entry.listeners.push(resolve));
  }

  #remember(destination: string): Entry {
    if (this.#entries.size >= this.#options.maxDestinations) this.#evictOne();
    const entry: Entry = { failures: 0, openUntil: 0, probing: false, listeners: [] };
    this.#entries.set(destination, entry);
    return entry;
  }

  #touch(destination: string, entry: Entry): void {
    this.#entries.delete(destination);
    this.#entries.set(destination, entry);
  }

  #forget(destination: string, entry: Entry): void {
    this.#entries.delete(destination);
    notify(entry);
  }

  /** Forgets the least recently used closed destination, or, when all are open, the oldest. */
  #evictOne(): void {
    let victim: [string, Entry] | undefined;
    for (const item of this.#entries) {
      victim ??= item;
      if (item[1].openUntil === 0) {
        victim = item;
        break;
      }
    }
    if (victim) this.#forget(victim[0], victim[1]);
  }
}

function notify(entry: Entry): void {
  const listeners = entry.listeners.splice(0);
  for (const listener of listeners) listener();
}
