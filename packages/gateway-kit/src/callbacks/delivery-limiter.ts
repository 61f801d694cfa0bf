import { withinBudget } from '../runtime/time-budget.ts';
import { CallbackConfigError } from './callback-config-error.ts';
import { type AttemptHealth, CircuitBreaker } from './circuit-breaker.ts';
import type { AttemptGate, AttemptTicket } from './deliver-callback.ts';

/**
 * Limits of a `CallbackDispatcher`, so that callers naming slow or dead receivers cannot make the
 * gateway hold unbounded sockets, memory or retries. Defaults: {@link CALLBACK_LIMIT_DEFAULTS}.
 *
 * @example
 * const limits: CallbackLimits = { maxConcurrentAttempts: 32, maxPendingDeliveries: 500 };
 */
export interface CallbackLimits {
  /** Attempts (open requests) in flight at once, all destinations together. Default 64. */
  readonly maxConcurrentAttempts?: number;
  /** Attempts in flight at once to one destination (URL origin). Default 16. */
  readonly maxConcurrentPerDestination?: number;
  /**
   * Deliveries not finished yet (waiting for a slot, in flight, or waiting to retry). A dispatch
   * beyond it ends at once as `overflow`. Default 1 000.
   */
  readonly maxPendingDeliveries?: number;
  /** Total JSON body bytes of those deliveries; beyond it, `overflow` too. Default 32 MiB. */
  readonly maxPendingBytes?: number;
  /** Consecutive failed attempts (no response, or 5xx) that open a destination's circuit. Default 5. */
  readonly circuitFailureThreshold?: number;
  /** How long an open circuit sends nothing before one probe attempt. Default 30 000 ms. */
  readonly circuitCooldownMs?: number;
  /** Destinations whose circuit state is remembered at most. Default 1 000. */
  readonly circuitMaxDestinations?: number;
}

/**
 * Defaults of {@link CallbackLimits} (see docs/callbacks.md, "Limits").
 *
 * @example
 * const perDestination = CALLBACK_LIMIT_DEFAULTS.maxConcurrentPerDestination; // 16
 */
export const CALLBACK_LIMIT_DEFAULTS: Readonly<Required<CallbackLimits>> =
  /* @__PURE__ */ Object.freeze({
    maxConcurrentAttempts: 64,
    maxConcurrentPerDestination: 16,
    maxPendingDeliveries: 1_000,
    maxPendingBytes: 32 * 1024 * 1024,
    circuitFailureThreshold: 5,
    circuitCooldownMs: 30_000,
    circuitMaxDestinations: 1_000,
  });

/** Clock and sleep the limiter waits with (the dispatcher's test hooks, or the defaults). */
export interface LimiterClock {
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** One admitted delivery; {@link release} exactly once when it has finished. */
export interface Admission {
  release(): void;
}

interface Destination {
  active: number;
  readonly queue: Array<() => void>;
}

function limitOption(limits: CallbackLimits, name: keyof CallbackLimits, min: number): number {
  const value = limits[name] ?? CALLBACK_LIMIT_DEFAULTS[name];
  if (!Number.isSafeInteger(value) || value < min) {
    throw new CallbackConfigError(name, `must be an integer >= ${min}`);
  }
  return value;
}

/**
 * Enforces {@link CallbackLimits} for one dispatcher: admission of deliveries (count and bytes),
 * attempt slots (global and per destination, granted round-robin across destinations so that a
 * saturated one does not hold up the others) and a per-destination {@link CircuitBreaker}.
 * Internal.
 *
 * @example
 * const limiter = new DeliveryLimiter({}, { now: Date.now, sleep: abortableSleep });
 * const admission = limiter.admit(payloadBytes);
 * if (!admission) return overflow;
 * await runDelivery(prepared, limiter.gate(origin, 60_000));
 * admission.release();
 */
export class DeliveryLimiter {
  readonly #maxAttempts: number;
  readonly #maxPerDestination: number;
  readonly #maxPending: number;
  readonly #maxBytes: number;
  readonly #clock: LimiterClock;
  readonly #breaker: CircuitBreaker;
  readonly #destinations = new Map<string, Destination>();
  /** Destinations with a queue and a free per-destination slot, served in turn. */
  readonly #ready = new Set<Destination>();
  #active = 0;
  #pending = 0;
  #pendingBytes = 0;

  /** @throws {CallbackConfigError} when a limit is not a positive integer. */
  constructor(limits: CallbackLimits, clock: LimiterClock) {
    this.#maxAttempts = limitOption(limits, 'maxConcurrentAttempts', 1);
    this.#maxPerDestination = limitOption(limits, 'maxConcurrentPerDestination', 1);
    this.#maxPending = limitOption(limits, 'maxPendingDeliveries', 1);
    this.#maxBytes = limitOption(limits, 'maxPendingBytes', 1);
    this.#clock = clock;
    this.#breaker = new CircuitBreaker({
      failureThreshold: limitOption(limits, 'circuitFailureThreshold', 1),
      cooldownMs: limitOption(limits, 'circuitCooldownMs', 0),
      maxDestinations: limitOption(limits, 'circuitMaxDestinations', 1),
      now: clock.now,
    });
  }

  /** Attempts in flight now. */
  get activeAttempts(): number {
    return this.#active;
  }

  /** Deliveries admitted and not released. */
  get pendingDeliveries(): number {
    return this.#pending;
  }

  /** Admits a delivery of `bytes` body bytes, or returns `undefined` when it would overflow. */
  admit(bytes: number): Admission | undefined {
    if (this.#pending + 1 > this.#maxPending || this.#pendingBytes + bytes > this.#maxBytes) {
      return undefined;
    }
    this.#pending += 1;
    this.#pendingBytes += bytes;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#pending -= 1;
        this.#pendingBytes -= bytes;
      },
    };
  }

  /**
   * The gate one delivery to `destination` passes before each attempt. It waits for the circuit
   * (at most `maxCircuitWaitMs` in total over the delivery, then `circuit_open`) and for a slot.
   */
  gate(destination: string, maxCircuitWaitMs: number): AttemptGate {
    let waited = 0;
    return {
      enter: async (signal) => {
        while (true) {
          if (signal?.aborted) return 'aborted';
          const state = this.#breaker.check(destination);
          if (state.kind === 'open') {
            const wait = Math.max(0, state.until - this.#clock.now());
            // Counted as asked, not as measured, so that a sleep hook that returns at once
            // cannot spin here forever.
            waited += Math.max(wait, 1);
            if (waited > maxCircuitWaitMs) return 'circuit_open';
            await this.#sleep(wait, signal);
            continue;
          }
          if (state.kind === 'probing') {
            // Bounded: the probe holds a slot, so its attempt timeout runs.
            await withinBudget(this.#breaker.changed(destination), { signal });
            continue;
          }
          const release = await this.#acquireSlot(destination, signal);
          if (!release) return 'aborted';
          const pass = this.#breaker.tryPass(destination);
          if (pass === 'blocked') {
            release();
            continue;
          }
          return this.#ticket(destination, release, pass === 'probe');
        }
      },
    };
  }

  #ticket(destination: string, release: () => void, probe: boolean): AttemptTicket {
    let left = false;
    return {
      leave: (health: AttemptHealth) => {
        if (left) return;
        left = true;
        release();
        this.#breaker.record(destination, health, probe);
      },
    };
  }

  async #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      const wait = Promise.resolve().then(() => this.#clock.sleep(ms, signal));
      await withinBudget(wait, { signal });
    } catch {
      // A failing sleep hook ends the wait early; the loop checks the circuit again.
    }
  }

  /** Resolves with the slot's release function, or `undefined` when `signal` aborted first. */
  #acquireSlot(name: string, signal: AbortSignal | undefined): Promise<(() => void) | undefined> {
    const destination = this.#destination(name);
    if (this.#active < this.#maxAttempts && destination.active < this.#maxPerDestination) {
      return Promise.resolve(this.#take(name, destination));
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#take(name, destination));
      };
      const onAbort = () => {
        const index = destination.queue.indexOf(grant);
        if (index >= 0) destination.queue.splice(index, 1);
        if (destination.queue.length === 0) this.#ready.delete(destination);
        this.#dropIfIdle(name, destination);
        resolve(undefined);
      };
      destination.queue.push(grant);
      if (destination.active < this.#maxPerDestination) this.#ready.add(destination);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #destination(name: string): Destination {
    let destination = this.#destinations.get(name);
    if (!destination) {
      destination = { active: 0, queue: [] };
      this.#destinations.set(name, destination);
    }
    return destination;
  }

  #take(name: string, destination: Destination): () => void {
    this.#active += 1;
    destination.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      destination.active -= 1;
      if (destination.queue.length > 0) this.#ready.add(destination);
      else this.#dropIfIdle(name, destination);
      this.#grant();
    };
  }

  /** Hands free slots to waiting attempts, one destination after another. */
  #grant(): void {
    while (this.#active < this.#maxAttempts) {
      const next = this.#ready.values().next();
      if (next.done) return;
      const destination = next.value;
      this.#ready.delete(destination);
      const waiter = destination.queue.shift();
      if (!waiter) continue;
      waiter();
      if (destination.queue.length > 0 && destination.active < this.#maxPerDestination) {
        this.#ready.add(destination);
      }
    }
  }

  #dropIfIdle(name: string, destination: Destination): void {
    if (destination.active === 0 && destination.queue.length === 0) {
      this.#destinations.delete(name);
    }
  }
}
