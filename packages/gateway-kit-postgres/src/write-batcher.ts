import { isStoreUnavailableError, StoreUnavailableError } from '@svc/gateway-kit/store';

/** What `sendMany` answers for a write that must be sent again alone (its batch was rolled back). */
export const RETRY_ALONE: unique symbol = Symbol('retry alone');

/**
 * Budgets and transport of a {@link WriteBatcher}.
 *
 * @example
 * const settings: WriteBatcherSettings<Op, Row> = {
 *   maxItems: 64, maxBytes: 1 << 20, maxInFlight: 2, maxQueuedItems: 10_000,
 *   maxQueuedBytes: 64 << 20, deadlineMs: 2_000, deadlineExceeded: () => new Error('late'),
 *   sendOne: (op) => run(op), sendMany: (ops) => runAll(ops),
 * };
 */
export interface WriteBatcherSettings<Op, Result> {
  /** Writes in one statement, at most. */
  readonly maxItems: number;
  /** Bytes of the writes' values in one statement, at most (a larger write is sent alone). */
  readonly maxBytes: number;
  /** Statements in flight at once; writes arriving meanwhile wait and go together in the next. */
  readonly maxInFlight: number;
  /** Writes waiting at most; past it (or `maxQueuedBytes`) a write fails at once, retryable. */
  readonly maxQueuedItems: number;
  readonly maxQueuedBytes: number;
  /** Each write settles within this many ms of its call, whether or not its batch answered. */
  readonly deadlineMs: number;
  readonly deadlineExceeded: () => unknown;
  /** Runs one write as its own statement (a batch of one, or a write retried alone). */
  readonly sendOne: (op: Op) => Promise<Result>;
  /** Runs several writes as one statement; one answer per write, in order. */
  readonly sendMany: (ops: readonly Op[]) => Promise<readonly (Result | typeof RETRY_ALONE)[]>;
}

interface Pending<Op, Result> {
  readonly op: Op;
  readonly bytes: number;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  queued: boolean;
  settled: boolean;
}

/**
 * Coalesces concurrent writes into one statement per round trip: a write called while
 * `maxInFlight` statements are running (or in the same event-loop turn) waits and is sent with the
 * others that waited, up to `maxItems` writes and `maxBytes` bytes per statement. Each caller gets
 * its own answer or error, within `deadlineMs` of its call; a lone write goes as its own statement.
 *
 * @example
 * const batcher = new WriteBatcher(settings);
 * const row = await batcher.write(op, byteLength);
 */
export class WriteBatcher<Op, Result> {
  readonly #settings: WriteBatcherSettings<Op, Result>;
  #queue: Pending<Op, Result>[] = [];
  #queuedBytes = 0;
  #inFlight = 0;
  #scheduled = false;
  #closed = false;

  constructor(settings: WriteBatcherSettings<Op, Result>) {
    this.#settings = settings;
  }

  /** Writes waiting for a statement. */
  get queued(): number {
    return this.#queue.length;
  }

  write(op: Op, bytes: number): Promise<Result> {
    const settings = this.#settings;
    if (this.#closed)
      return Promise.reject(new StoreUnavailableError('The Postgres store is closed.'));
    if (
      this.#queue.length >= settings.maxQueuedItems ||
      this.#queuedBytes + bytes > settings.maxQueuedBytes
    )
      return Promise.reject(
        new StoreUnavailableError(
          `The Postgres job store has ${this.#queue.length} writes (${this.#queuedBytes} bytes) waiting; try again shortly.`,
        ),
      );
    return new Promise<Result>((resolve, reject) => {
      const pending: Pending<Op, Result> = {
        op,
        bytes,
        resolve,
        reject,
        timer: undefined,
        queued: true,
        settled: false,
      };
      pending.timer = setTimeout(() => {
        if (pending.queued) this.#dequeue(pending);
        this.#fail(pending, settings.deadlineExceeded());
      }, settings.deadlineMs);
      this.#queue.push(pending);
      this.#queuedBytes += bytes;
      this.#schedule();
    });
  }

  /** Fails every waiting write (a write already sent still gets its answer). */
  close(): void {
    this.#closed = true;
    const waiting = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    for (const pending of waiting) {
      pending.queued = false;
      this.#fail(pending, new StoreUnavailableError('The Postgres store is closed.'));
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    if (this.#inFlight >= this.#settings.maxInFlight) return; // sent when a statement returns
    this.#scheduled = true;
    // The rest of this turn's writes join the batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    const { maxInFlight, maxItems, maxBytes } = this.#settings;
    while (this.#inFlight < maxInFlight && this.#queue.length > 0) {
      // Shared out over the free statements, so that the database works on them in parallel.
      const share = Math.ceil(this.#queue.length / (maxInFlight - this.#inFlight));
      let count = 0;
      let bytes = 0;
      while (
        count < share &&
        count < maxItems &&
        (count === 0 || bytes + this.#queue[count]!.bytes <= maxBytes)
      ) {
        bytes += this.#queue[count]!.bytes;
        count += 1;
      }
      const batch = this.#queue.splice(0, count);
      this.#queuedBytes -= bytes;
      for (const pending of batch) pending.queued = false;
      this.#inFlight += 1;
      void this.#send(batch).finally(() => {
        this.#inFlight -= 1;
        this.#schedule();
      });
    }
  }

  async #send(batch: Pending<Op, Result>[]): Promise<void> {
    if (batch.length === 1) return this.#sendAlone(batch[0]!);
    let results: readonly (Result | typeof RETRY_ALONE)[];
    try {
      results = await this.#settings.sendMany(batch.map((pending) => pending.op));
    } catch (error) {
      // An outage or a missed deadline: each of these writes, alone, would have failed the same.
      if (isStoreUnavailableError(error)) {
        for (const pending of batch) this.#fail(pending, error);
        return;
      }
      // Anything else (a value the statement refused) belongs to one write: send each alone.
      results = batch.map(() => RETRY_ALONE);
    }
    const alone: Promise<void>[] = [];
    batch.forEach((pending, i) => {
      const result = i < results.length ? results[i]! : RETRY_ALONE;
      if (result === RETRY_ALONE) alone.push(this.#sendAlone(pending));
      else this.#succeed(pending, result as Result);
    });
    await Promise.all(alone);
  }

  async #sendAlone(pending: Pending<Op, Result>): Promise<void> {
    if (pending.settled) return; // Its deadline passed: not sent.
    try {
      this.#succeed(pending, await this.#settings.sendOne(pending.op));
    } catch (error) {
      this.#fail(pending, error);
    }
  }

  #dequeue(pending: Pending<Op, Result>): void {
    const index = this.#queue.indexOf(pending);
    if (index >= 0) this.#queue.splice(index, 1);
    this.#queuedBytes -= pending.bytes;
    pending.queued = false;
  }

  #succeed(pending: Pending<Op, Result>, result: Result): void {
    if (pending.settled) return;
    pending.settled = true;
    clearTimeout(pending.timer);
    pending.resolve(result);
  }

  #fail(pending: Pending<Op, Result>, error: unknown): void {
    if (pending.settled) return;
    pending.settled = true;
    clearTimeout(pending.timer);
    pending.reject(error);
  }
}
