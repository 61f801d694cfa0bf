import { MAX_TIMER_MS } from '../runtime/limits.ts';
import { withinBudget } from '../runtime/time-budget.ts';
import { refuseCallbackOption } from './callback-config-error.ts';
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
  /**
   * Attempts in flight at once to one destination: a URL origin as one principal calls it back
   * (two principals' callbacks to one origin are two destinations). Default 16.
   */
  readonly maxConcurrentPerDestination?: number;
  /**
   * Deliveries not finished yet (waiting for a slot, in flight, or waiting to retry). A dispatch
   * beyond it ends at once as `overflow`. Default 1 000.
   */
  readonly maxPendingDeliveries?: number;
  /** Total JSON body bytes of those deliveries; beyond it, `overflow` too. Default 32 MiB. */
  readonly maxPendingBytes?: number;
  /**
   * Attempts in flight at once for one principal (deliveries that name one), all its destinations
   * together, so that one principal's silent receivers never hold every slot. Default 32.
   */
  readonly maxConcurrentAttemptsPerPrincipal?: number;
  /**
   * One principal's share of those deliveries (deliveries that name a `principal`): beyond it,
   * that principal's new callback ends as `overflow`, whatever the others hold. Default 250.
   */
  readonly maxPendingPerPrincipal?: number;
  /** One principal's share of the pending body bytes; beyond it, `overflow` too. Default 8 MiB. */
  readonly maxPendingBytesPerPrincipal?: number;
  /**
   * Consecutive attempts without a response (timeout, network or DNS error) that open a
   * destination's circuit (per principal and origin). Default 5.
   */
  readonly circuitFailureThreshold?: number;
  /**
   * How long an open circuit sends nothing before one probe attempt: whole milliseconds from 0 to
   * 2 147 483 647 (the longest timer). Default 30 000 ms.
   */
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
    maxConcurrentAttemptsPerPrincipal: 32,
    maxPendingDeliveries: 1_000,
    maxPendingBytes: 32 * 1024 * 1024,
    maxPendingPerPrincipal: 250,
    maxPendingBytesPerPrincipal: 8 * 1024 * 1024,
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

/**
 * Where an attempt goes, as the limiter counts it: the URL's origin as `principal` calls it back.
 * Without a principal (a dispatcher used directly), deliveries share the global limits only.
 */
export interface DeliveryTarget {
  readonly origin: string;
  readonly principal?: string | undefined;
}

interface Destination {
  readonly key: string;
  readonly principal: string;
  active: number;
  readonly queue: Array<() => void>;
}

interface Share {
  pending: number;
  bytes: number;
}

/**
 * What {@link DeliveryLimiter.gate} may wait for: the circuit (at most `maxCircuitWaitMs` over the
 * whole delivery, then `circuit_open`) and a slot (without `maxSlotWaitMs`, as long as it takes;
 * with it, at most that long, then `busy`).
 */
export interface GateOptions {
  readonly maxCircuitWaitMs: number;
  readonly maxSlotWaitMs?: number;
}

function limitOption(
  limits: CallbackLimits,
  name: keyof CallbackLimits,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  const value = limits[name] ?? CALLBACK_LIMIT_DEFAULTS[name];
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    refuseCallbackOption(
      name,
      value,
      max === MAX_TIMER_MS
        ? `expected 0 or a positive integer of milliseconds up to ${max}.`
        : `expected a positive integer.`,
    );
  }
  return value;
}

/** The key of one destination: principal and origin (a NUL cannot occur in either). */
function keyOf(target: DeliveryTarget): string {
  return `${target.principal ?? ''}\u0000${target.origin}`;
}

/**
 * Enforces {@link CallbackLimits} for one dispatcher: admission of deliveries (count and bytes,
 * in total and per principal), attempt slots (global and per destination) and a per-destination
 * {@link CircuitBreaker}. A destination is an origin as one principal calls it back, so one
 * principal's failing or silent receiver never opens the circuit or takes the slots of another
 * principal's callbacks to the same origin. Free slots are granted round-robin: first across
 * principals with waiting attempts, then across that principal's destinations, so a principal
 * flooding many destinations delays another's next attempt by at most one grant per principal.
 * Internal.
 *
 * @example
 * const limiter = new DeliveryLimiter({}, { now: Date.now, sleep: abortableSleep });
 * const admission = limiter.admit(payloadBytes, 'principal-a');
 * if (!admission) return overflow;
 * await runDelivery(prepared, limiter.gate({ origin, principal: 'principal-a' }, { maxCircuitWaitMs: 60_000 }));
 * admission.release();
 */
export class DeliveryLimiter {
  readonly #maxAttempts: number;
  readonly #maxPerDestination: number;
  readonly #maxPerPrincipal: number;
  readonly #maxPending: number;
  readonly #maxBytes: number;
  readonly #maxPendingPerPrincipal: number;
  readonly #maxBytesPerPrincipal: number;
  readonly #clock: LimiterClock;
  readonly #breaker: CircuitBreaker;
  readonly #destinations = new Map<string, Destination>();
  /**
   * Principals with a destination that has a queue and a free per-destination slot, in turn
   * order (a served principal moves to the end), each with its ready destinations in turn order.
   */
  readonly #ready = new Map<string, Set<Destination>>();
  readonly #shares = new Map<string, Share>();
  /** Attempts in flight per principal (named principals only). */
  readonly #principalActive = new Map<string, number>();
  #active = 0;
  #pending = 0;
  #pendingBytes = 0;

  /** @throws {CallbackConfigError} when a limit is not a positive integer. */
  constructor(limits: CallbackLimits, clock: LimiterClock) {
    this.#maxAttempts = limitOption(limits, 'maxConcurrentAttempts', 1);
    this.#maxPerDestination = limitOption(limits, 'maxConcurrentPerDestination', 1);
    this.#maxPerPrincipal = limitOption(limits, 'maxConcurrentAttemptsPerPrincipal', 1);
    this.#maxPending = limitOption(limits, 'maxPendingDeliveries', 1);
    this.#maxBytes = limitOption(limits, 'maxPendingBytes', 1);
    this.#maxPendingPerPrincipal = limitOption(limits, 'maxPendingPerPrincipal', 1);
    this.#maxBytesPerPrincipal = limitOption(limits, 'maxPendingBytesPerPrincipal', 1);
    this.#clock = clock;
    this.#breaker = new CircuitBreaker({
      failureThreshold: limitOption(limits, 'circuitFailureThreshold', 1),
      cooldownMs: limitOption(limits, 'circuitCooldownMs', 0, MAX_TIMER_MS),
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

  /** Deliveries of `principal` admitted and not released. */
  pendingOf(principal: string): number {
    return this.#shares.get(principal)?.pending ?? 0;
  }

  /**
   * Admits a delivery of `bytes` body bytes for `principal`, or returns `undefined` when it would
   * overflow the global limits or that principal's share.
   */
  admit(bytes: number, principal?: string): Admission | undefined {
    if (this.#pending + 1 > this.#maxPending || this.#pendingBytes + bytes > this.#maxBytes) {
      return undefined;
    }
    let share: Share | undefined;
    if (principal !== undefined) {
      share = this.#shares.get(principal);
      const pending = share?.pending ?? 0;
      const held = share?.bytes ?? 0;
      if (pending + 1 > this.#maxPendingPerPrincipal || held + bytes > this.#maxBytesPerPrincipal) {
        return undefined;
      }
      if (!share) {
        share = { pending: 0, bytes: 0 };
        this.#shares.set(principal, share);
      }
      share.pending += 1;
      share.bytes += bytes;
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
        if (share && principal !== undefined) {
          share.pending -= 1;
          share.bytes -= bytes;
          if (share.pending === 0) this.#shares.delete(principal);
        }
      },
    };
  }

  /**
   * How long, in ms, until `target`'s circuit lets an attempt through: 0 when closed or
   * half-open; while a probe is in flight, `undefined` (not known: when the probe ends).
   */
  circuitDelay(target: DeliveryTarget): number | undefined {
    const state = this.#breaker.check(keyOf(target));
    if (state.kind === 'open') return Math.max(0, state.until - this.#clock.now());
    return state.kind === 'probing' ? undefined : 0;
  }

  /**
   * The gate one delivery to `target` passes before each attempt. It waits for the circuit (at
   * most `maxCircuitWaitMs` in total over the delivery, then `circuit_open`; with 0 it never
   * waits, a probe in flight included) and for a slot (at most `maxSlotWaitMs` when set, then
   * `busy`).
   */
  gate(target: DeliveryTarget, options: GateOptions): AttemptGate {
    const key = keyOf(target);
    const principal = target.principal ?? '';
    const { maxCircuitWaitMs, maxSlotWaitMs } = options;
    let waited = 0;
    return {
      enter: async (signal) => {
        while (true) {
          if (signal?.aborted) return 'aborted';
          const state = this.#breaker.check(key);
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
            if (maxCircuitWaitMs <= 0) return 'circuit_open';
            // Bounded: the probe holds a slot, so its attempt timeout runs.
            await withinBudget(this.#breaker.changed(key), { signal });
            continue;
          }
          const slotSignal =
            maxSlotWaitMs === undefined
              ? signal
              : signal
                ? AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, maxSlotWaitMs))])
                : AbortSignal.timeout(Math.max(1, maxSlotWaitMs));
          const release = await this.#acquireSlot(key, principal, slotSignal);
          if (!release) return signal?.aborted ? 'aborted' : 'busy';
          const pass = this.#breaker.tryPass(key);
          if (pass === 'blocked') {
            release();
            continue;
          }
          return this.#ticket(key, release, pass === 'probe');
        }
      },
    };
  }

  #ticket(key: string, release: () => void, probe: boolean): AttemptTicket {
    let left = false;
    return {
      leave: (health: AttemptHealth) => {
        if (left) return;
        left = true;
        release();
        this.#breaker.record(key, health, probe);
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
  #acquireSlot(
    key: string,
    principal: string,
    signal: AbortSignal | undefined,
  ): Promise<(() => void) | undefined> {
    const destination = this.#destination(key, principal);
    if (
      this.#active < this.#maxAttempts &&
      destination.active < this.#maxPerDestination &&
      this.#principalHasRoom(destination.principal)
    ) {
      return Promise.resolve(this.#take(destination));
    }
    if (signal?.aborted) {
      this.#dropIfIdle(destination);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#take(destination));
      };
      const onAbort = () => {
        const index = destination.queue.indexOf(grant);
        if (index >= 0) destination.queue.splice(index, 1);
        if (destination.queue.length === 0) this.#unready(destination);
        this.#dropIfIdle(destination);
        resolve(undefined);
      };
      destination.queue.push(grant);
      if (destination.active < this.#maxPerDestination) this.#markReady(destination);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #destination(key: string, principal: string): Destination {
    let destination = this.#destinations.get(key);
    if (!destination) {
      destination = { key, principal, active: 0, queue: [] };
      this.#destinations.set(key, destination);
    }
    return destination;
  }

  #markReady(destination: Destination): void {
    let ready = this.#ready.get(destination.principal);
    if (!ready) {
      ready = new Set();
      this.#ready.set(destination.principal, ready);
    }
    ready.add(destination);
  }

  #unready(destination: Destination): void {
    const ready = this.#ready.get(destination.principal);
    if (!ready) return;
    ready.delete(destination);
    if (ready.size === 0) this.#ready.delete(destination.principal);
  }

  /** Whether `principal` may start one more attempt ('' — no principal — has no cap of its own). */
  #principalHasRoom(principal: string): boolean {
    return principal === '' || (this.#principalActive.get(principal) ?? 0) < this.#maxPerPrincipal;
  }

  #take(destination: Destination): () => void {
    const { principal } = destination;
    this.#active += 1;
    destination.active += 1;
    if (principal !== '') {
      this.#principalActive.set(principal, (this.#principalActive.get(principal) ?? 0) + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      destination.active -= 1;
      if (principal !== '') {
        const left = (this.#principalActive.get(principal) ?? 1) - 1;
        if (left > 0) this.#principalActive.set(principal, left);
        else this.#principalActive.delete(principal);
      }
      if (destination.queue.length > 0) this.#markReady(destination);
      else this.#dropIfIdle(destination);
      this.#grant();
    };
  }

  /**
   * Hands free slots to waiting attempts: one principal after another (skipping principals at
   * their own cap, who keep their turn), then one destination after another.
   */
  #grant(): void {
    while (this.#active < this.#maxAttempts) {
      let next: [string, Set<Destination>] | undefined;
      for (const candidate of this.#ready) {
        if (this.#principalHasRoom(candidate[0])) {
          next = candidate;
          break;
        }
      }
      if (!next) return;
      const [principal, ready] = next;
      // The principal served now takes its next turn after every other waiting principal.
      this.#ready.delete(principal);
      const destination = ready.values().next().value as Destination;
      ready.delete(destination);
      const waiter = destination.queue.shift();
      if (waiter) waiter();
      if (destination.queue.length > 0 && destination.active < this.#maxPerDestination) {
        ready.add(destination);
      }
      if (ready.size > 0) this.#ready.set(principal, ready);
    }
  }

  #dropIfIdle(destination: Destination): void {
    if (destination.active === 0 && destination.queue.length === 0) {
      this.#destinations.delete(destination.key);
    }
  }
}
