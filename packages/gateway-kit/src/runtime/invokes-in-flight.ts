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
 * if (!inFlight.enter('hosted-service')) return quotaExceeded(runtime, 'concurrentInvokes');
 * // … answer the invoke, then:
 * inFlight.leave('hosted-service');
 */
export class InvokesInFlight {
  readonly #counts = new Map<string, number>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** Takes one of `principalId`'s slots; `false`, having taken nothing, when all are in use. */
  enter(principalId: string): boolean {
    const count = this.#counts.get(principalId) ?? 0;
    if (count >= this.#max) return false;
    this.#counts.set(principalId, count + 1);
    return true;
  }

  /** Gives back a slot {@link enter} took. A principal with none left is forgotten. */
  leave(principalId: string): void {
    const count = (this.#counts.get(principalId) ?? 1) - 1;
    if (count > 0) this.#counts.set(principalId, count);
    else this.#counts.delete(principalId);
  }

  /** Invokes of `principalId` being answered now. */
  count(principalId: string): number {
    return this.#counts.get(principalId) ?? 0;
  }
}
