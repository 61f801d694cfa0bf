/**
 * Counts each principal's invokes being answered by this process, for `quotas.concurrentInvokes`.
 * An invoke holds its body and what parsing it built (up to about 1.4 MiB of heap for a 256 KiB
 * body of the densest shape the budgets allow) until it is answered, and a sync one until its
 * action settles: without a count, one caller's slow invokes (512 connections, 17 pipelined on
 * each) could hold more than any heap. Counted in memory, per process: that memory is the
 * process's own.
 *
 * @example
 * const inFlight = new InvokesInFlight(64);
 * const slots = inFlight.enter('hosted-service');
 * if (slots === undefined) return quotaExceeded(runtime, 'concurrentInvokes');
 * answer.then(slots.release, slots.release); // once the invoke is answered
 */
export class InvokesInFlight {
  readonly #slots = new Map<string, PrincipalSlots>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * Takes one of `principalId`'s slots and returns its principal's {@link PrincipalSlots}, whose
   * `release` gives it back; `undefined`, having taken nothing, when all are in use.
   */
  enter(principalId: string): PrincipalSlots | undefined {
    let slots = this.#slots.get(principalId);
    if (slots === undefined) {
      slots = new PrincipalSlots(this.#slots, principalId);
      this.#slots.set(principalId, slots);
    } else if (slots.count >= this.#max) return undefined;
    slots.count += 1;
    return slots;
  }

  /** Invokes of `principalId` being answered now. */
  count(principalId: string): number {
    return this.#slots.get(principalId)?.count ?? 0;
  }
}

/**
 * One principal's invokes in progress. Kept while it has any, so that a busy principal's invokes
 * allocate nothing to be counted: `release` is made once per principal, not per invoke.
 */
class PrincipalSlots {
  count = 0;
  readonly #all: Map<string, PrincipalSlots>;
  readonly #principalId: string;

  constructor(all: Map<string, PrincipalSlots>, principalId: string) {
    this.#all = all;
    this.#principalId = principalId;
  }

  /** Gives back one slot; the principal is forgotten with its last. */
  readonly release = (): void => {
    this.count -= 1;
    if (this.count === 0) this.#all.delete(this.#principalId);
  };
}
