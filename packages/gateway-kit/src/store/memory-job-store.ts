import { type Refuse, refusalFor } from '../runtime/config-refusal.ts';
import { MAX_TIMER_MS } from '../runtime/limits.ts';
import { unrefTimer } from '../runtime/timers.ts';
import { CancelListeners } from './cancel-listeners.ts';
import {
  canTransition,
  isTerminal,
  JOB_UPDATE_FIELDS,
  type JobStore,
  type JobUpdate,
  type JobWriteResult,
  NEW_JOB_FIELDS,
  type NewJob,
  type StoredJob,
} from './job-store.ts';
import { JobStoreFullError } from './job-store-full-error.ts';

/**
 * Options of {@link MemoryJobStore}.
 *
 * @example
 * const options: MemoryJobStoreOptions = { maxJobs: 1_000, retentionMs: 60 * 60 * 1000 };
 */
export interface MemoryJobStoreOptions {
  /** Most jobs kept at once, active and finished. Default 10 000. */
  readonly maxJobs?: number;
  /** Most bytes of jobs kept at once, active and finished, counted as twice their JSON. Default 64 MiB. */
  readonly maxBytes?: number;
  /** How long a finished job stays readable after it finished, in ms. Default 24 h. */
  readonly retentionMs?: number;
  /**
   * Most finished jobs kept per principal (`ownerId`): past it, that principal's earliest-finished
   * job is evicted, so one principal's churn never evicts another's. Jobs of approved actions
   * (`approvalId`) have a share of their own. Default 1 000.
   */
  readonly maxFinishedPerOwner?: number;
  /**
   * How often the background sweep frees expired jobs, in ms. Default: `retentionMs` clamped to
   * 1 s … 60 s. `0` disables the timer; expired jobs are then freed on the next `create` (and are
   * never returned either way). At most 2 147 483 647 (the longest timer). The timer only runs
   * while finished jobs exist, and is `unref`'d.
   */
  readonly sweepIntervalMs?: number;
  /** Clock in epoch ms, used for timestamps and retention. Default `Date.now`. */
  readonly now?: () => number;
  /** Receives what a cancel listener threw; the other listeners still run. Default `console.error`. */
  readonly onListenerError?: (error: unknown, jobId: string) => void;
}

/** One stored job. Mutable on purpose: writes replace `job`, the slot's identity stays. */
interface Slot {
  job: StoredJob;
  /** What `job` costs, as JSON. */
  bytes: number;
  /** When the job reached a terminal state (ms), if it did. */
  finishedAt: number | undefined;
  removed: boolean;
}

/**
 * One principal's finished slots in finish order (the oldest at `head`), which is both eviction
 * and retention order. An array queue rather than a Map: popping a Map's first entry over and over
 * makes V8 skip ever more deleted entries (~5 µs per create at 10 000 jobs). Slots removed out of
 * order stay until reached (`removed` is set); consumed cells are cleared so they hold nothing.
 */
interface FinishQueue {
  readonly slots: (Slot | undefined)[];
  head: number;
  /** Live (not removed) slots in the queue. */
  count: number;
}

const DEFAULT_MAX_JOBS = 10_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_FINISHED_PER_OWNER = 1_000;
const noop = (): void => {};

/**
 * The embedded default {@link JobStore}: jobs live in this process's memory.
 *
 * - Single process only: a second gateway instance has its own jobs and cancel listeners.
 * - Bounded: at most `maxJobs` jobs, and `maxFinishedPerOwner` finished jobs per principal (its
 *   earliest-finished job makes room). When full, the earliest-finished job of the principal with
 *   the most finished jobs is evicted, never another's for it, and `create` rejects with
 *   {@link JobStoreFullError} if every stored job is still active.
 * - Finished jobs are removed `retentionMs` after they finished (never returned after that,
 *   freed by a background sweep or the next `create`).
 * - Returned records are deeply frozen snapshots; inputs are structurally cloned on write.
 *
 * @example
 * const store = new MemoryJobStore({ maxJobs: 1_000, retentionMs: 15 * 60 * 1000 });
 * const { job } = await store.create({
 *   jobId: 'job_1', ownerId: 'user_1', invocationId: 'inv_1', actionId: 'export',
 *   actionName: 'Export', status: 'queued', createdAt: new Date().toISOString(),
 * });
 * const stop = store.onCancel(job.jobId, () => controller.abort());
 * await store.update(job.jobId, job.version, { status: 'running' });
 * // ...
 * stop();
 * await store.close();
 */
export class MemoryJobStore implements JobStore {
  readonly #maxJobs: number;
  readonly #maxBytes: number;
  #bytes = 0;
  readonly #retentionMs: number;
  readonly #sweepIntervalMs: number;
  readonly #now: () => number;
  readonly #jobs = new Map<string, Slot>();
  readonly #maxFinishedPerOwner: number;
  /** Each principal's finished jobs, in finish order. */
  readonly #finished = new Map<string, FinishQueue>();
  #finishedCount = 0;
  readonly #listeners: CancelListeners;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: MemoryJobStoreOptions = {}) {
    const maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS;
    const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    const sweepIntervalMs =
      options.sweepIntervalMs ?? Math.min(Math.max(retentionMs, 1_000), 60_000);
    if (!Number.isSafeInteger(maxJobs) || maxJobs < 1) {
      refuse('maxJobs', maxJobs, 'expected a positive integer.');
    }
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      refuse('maxBytes', maxBytes, 'expected a positive integer.');
    }
    this.#maxBytes = maxBytes;
    const maxFinishedPerOwner = options.maxFinishedPerOwner ?? DEFAULT_MAX_FINISHED_PER_OWNER;
    if (!Number.isSafeInteger(maxFinishedPerOwner) || maxFinishedPerOwner < 1) {
      refuse('maxFinishedPerOwner', maxFinishedPerOwner, 'expected a positive integer.');
    }
    this.#maxFinishedPerOwner = maxFinishedPerOwner;
    if (!Number.isFinite(retentionMs) || retentionMs < 0) {
      refuse('retentionMs', retentionMs, 'expected 0 or a positive number of milliseconds.');
    }
    // A longer interval fires at once (Node warns and uses 1 ms): a sweep on every tick.
    if (
      !Number.isFinite(sweepIntervalMs) ||
      sweepIntervalMs < 0 ||
      sweepIntervalMs > MAX_TIMER_MS
    ) {
      refuse(
        'sweepIntervalMs',
        sweepIntervalMs,
        `expected 0 (off) or a positive number of milliseconds up to ${MAX_TIMER_MS}.`,
      );
    }
    this.#maxJobs = maxJobs;
    this.#retentionMs = retentionMs;
    this.#sweepIntervalMs = sweepIntervalMs;
    // Looked up per call, so a clock installed later (fake timers) is honoured.
    this.#now = options.now ?? (() => Date.now());
    this.#listeners = new CancelListeners(options.onListenerError);
  }

  /** Jobs currently held (active and finished, including expired ones not yet swept). */
  get size(): number {
    return this.#jobs.size;
  }

  /** Bytes of the jobs currently held (as JSON). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Cancel listeners currently registered (and not yet called or unsubscribed). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  async create(input: NewJob): Promise<{
    /** `false` when a job with this id existed already. */
    readonly created: boolean;
    /** The job as stored: the new one, or the one that existed. */
    readonly job: StoredJob;
  }> {
    // A terminal job created directly would bypass retention and eviction bookkeeping.
    if (input.status !== 'queued' && input.status !== 'running') {
      throw new TypeError(`A job must be created queued or running, not ${String(input.status)}.`);
    }
    const now = this.#now();
    this.#sweep(now);
    const existing = this.#jobs.get(input.jobId);
    if (existing) return { created: false, job: existing.job };
    // Clone before anything is stored so that a bad input (e.g. a function) leaves no trace.
    const fields = structuredClone(pick(input, NEW_JOB_FIELDS));
    const job = deepFreeze({
      ...fields,
      status: input.status,
      version: 1,
      updatedAt: new Date(now).toISOString(),
      cancelRequested: false,
    } as StoredJob);
    const bytes = sizeOf(job);
    this.#makeRoom(bytes);
    this.#jobs.set(job.jobId, { job, bytes, finishedAt: undefined, removed: false });
    this.#bytes += bytes;
    return { created: true, job };
  }

  async get(jobId: string): Promise<StoredJob | undefined> {
    return this.#live(jobId, this.#now())?.job;
  }

  async update(jobId: string, expectedVersion: number, update: JobUpdate): Promise<JobWriteResult> {
    const now = this.#now();
    const slot = this.#live(jobId, now);
    if (!slot) return { ok: false, reason: 'not_found' };
    const current = slot.job;
    // Version first: a stale writer must re-read before learning anything else.
    if (current.version !== expectedVersion) return { ok: false, reason: 'conflict', job: current };
    const allowed =
      update.status === undefined
        ? !isTerminal(current.status)
        : canTransition(current.status, update.status);
    if (!allowed) return { ok: false, reason: 'invalid_transition', job: current };
    const patch = structuredClone(pick(update, JOB_UPDATE_FIELDS));
    const job = this.#write(slot, { ...patch, status: update.status ?? current.status }, now);
    // Finishing any other way than requestCancel releases listeners without calling them.
    if (isTerminal(job.status)) this.#listeners.release(jobId);
    return { ok: true, job };
  }

  async requestCancel(jobId: string): Promise<JobWriteResult> {
    const now = this.#now();
    const slot = this.#live(jobId, now);
    if (!slot) return { ok: false, reason: 'not_found' };
    const current = slot.job;
    if (isTerminal(current.status))
      return { ok: false, reason: 'invalid_transition', job: current };
    const job = this.#write(slot, { status: 'cancelled', cancelRequested: true }, now);
    // Called synchronously, after the write, so listeners that read the store see `cancelled`
    // and in-process runners are told before requestCancel resolves.
    this.#listeners.deliver(jobId);
    return { ok: true, job };
  }

  onCancel(jobId: string, listener: () => void): () => void {
    const job = this.#live(jobId, this.#now())?.job;
    // Unknown jobs and jobs that finished without a cancel request will never be cancelled:
    // keeping their listeners would only leak them.
    if (!job || (isTerminal(job.status) && !job.cancelRequested)) return noop;
    // Cancellation already happened: tell the late subscriber, asynchronously and only once.
    if (job.cancelRequested) return this.#listeners.addCancelled(jobId, listener);
    return this.#listeners.add(jobId, listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTimer();
  }

  /** The job if it exists and has not outlived its retention; frees it if it has. */
  #live(jobId: string, now: number): Slot | undefined {
    const slot = this.#jobs.get(jobId);
    if (slot?.finishedAt !== undefined && now - slot.finishedAt >= this.#retentionMs) {
      this.#remove(slot);
      return undefined;
    }
    return slot;
  }

  #write(
    slot: Slot,
    patch: Partial<
      Pick<StoredJob, 'status' | 'cancelRequested' | (typeof JOB_UPDATE_FIELDS)[number]>
    >,
    now: number,
  ): StoredJob {
    const next: { -readonly [K in keyof StoredJob]?: StoredJob[K] } = {
      ...slot.job,
      ...patch,
      version: slot.job.version + 1,
      updatedAt: new Date(now).toISOString(),
    };
    // A finished job keeps nothing the caller sent (the JobStore contract).
    if (next.status !== undefined && isTerminal(next.status)) delete next.request;
    const job = deepFreeze(next as StoredJob);
    const bytes = sizeOf(job);
    // A result may grow a job: older finished jobs make room first (never this one).
    if (bytes > slot.bytes) this.#makeRoom(bytes - slot.bytes, slot);
    this.#bytes += bytes - slot.bytes;
    slot.bytes = bytes;
    slot.job = job;
    if (isTerminal(job.status)) {
      slot.finishedAt = now;
      const owner = retentionGroup(job);
      let queue = this.#finished.get(owner);
      if (!queue) {
        queue = { slots: [], head: 0, count: 0 };
        this.#finished.set(owner, queue);
      }
      queue.slots.push(slot);
      queue.count += 1;
      this.#finishedCount += 1;
      // The principal's share: its own earliest-finished job makes room, nobody else's.
      if (queue.count > this.#maxFinishedPerOwner) {
        const oldest = oldestOf(queue);
        if (oldest) this.#remove(oldest);
      }
      this.#startTimer();
    }
    return job;
  }

  /**
   * Evicts finished jobs until one more (`bytes` large) fits, or rejects if every job left is
   * active: each time the earliest-finished job of the principal holding the most finished jobs,
   * so a principal with few is the last to lose any. `growing` is a job being rewritten: it takes
   * no new slot.
   */
  #makeRoom(bytes: number, growing?: Slot): void {
    const needsSlot = growing === undefined;
    while (
      (needsSlot && this.#jobs.size >= this.#maxJobs) ||
      this.#bytes + bytes > this.#maxBytes
    ) {
      const oldest = this.#heaviest();
      if (!oldest || oldest === growing) throw new JobStoreFullError(this.#maxJobs);
      this.#remove(oldest);
    }
  }

  /** The earliest-finished job of the principal with the most finished jobs. */
  #heaviest(): Slot | undefined {
    let heaviest: FinishQueue | undefined;
    for (const queue of this.#finished.values()) {
      if (!heaviest || queue.count > heaviest.count) heaviest = queue;
    }
    return heaviest ? oldestOf(heaviest) : undefined;
  }

  /**
   * Frees expired jobs. Each principal's finish order is its retention order, so each stops at its
   * first live one.
   */
  #sweep(now: number): void {
    if (this.#finishedCount === 0) {
      this.#stopTimer();
      return;
    }
    for (const queue of this.#finished.values()) {
      for (let oldest = oldestOf(queue); oldest; oldest = oldestOf(queue)) {
        if (now - (oldest.finishedAt ?? now) < this.#retentionMs) break;
        this.#remove(oldest);
      }
    }
    if (this.#finishedCount === 0) this.#stopTimer();
  }

  #remove(slot: Slot): void {
    if (slot.removed) return;
    slot.removed = true;
    if (slot.finishedAt !== undefined) {
      this.#finishedCount -= 1;
      const owner = retentionGroup(slot.job);
      const queue = this.#finished.get(owner);
      if (queue) {
        queue.count -= 1;
        if (queue.slots[queue.head] === slot) {
          queue.slots[queue.head] = undefined;
          queue.head += 1;
          // Compact once the consumed prefix dominates, so the array stays O(stored jobs).
          if (queue.head >= 1024 && queue.head * 2 >= queue.slots.length) {
            queue.slots.splice(0, queue.head);
            queue.head = 0;
          }
        }
        if (queue.count === 0) this.#finished.delete(owner);
      }
    }
    this.#jobs.delete(slot.job.jobId);
    this.#bytes -= slot.bytes;
    this.#listeners.release(slot.job.jobId);
  }

  #startTimer(): void {
    if (this.#timer !== undefined || this.#closed || this.#sweepIntervalMs === 0) return;
    this.#timer = setInterval(() => this.#sweep(this.#now()), this.#sweepIntervalMs);
    unrefTimer(this.#timer);
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Whose share a finished job counts in: its principal's, or, for a job an approval runs, apart
 * (the principal's churn of other jobs must not evict what its approval links to).
 */
function retentionGroup(job: StoredJob): string {
  return job.approvalId === undefined ? job.ownerId : `${job.ownerId}\napproved`;
}

/** The earliest-finished slot still in `queue`, dropping removed ones from its front. */
function oldestOf(queue: FinishQueue): Slot | undefined {
  const { slots } = queue;
  while (queue.head < slots.length) {
    const slot = slots[queue.head];
    if (slot && !slot.removed) return slot;
    slots[queue.head] = undefined;
    queue.head += 1;
  }
  // Drained: start over at index 0 instead of growing the array forever.
  slots.length = 0;
  queue.head = 0;
  return undefined;
}

const refuse: Refuse = refusalFor('new MemoryJobStore');

/**
 * What a job costs held in memory: objects take about twice their JSON size in a JavaScript heap
 * (more for many small objects), so `maxBytes` counts twice the JSON.
 */
function sizeOf(job: StoredJob): number {
  return 2 * JSON.stringify(job).length;
}

/** Copies the listed own fields that are set, dropping anything else the caller passed. */
function pick<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const target: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    if (source[key] !== undefined) target[key] = source[key];
  }
  return target;
}

/** Freezes a record and everything it holds, skipping parts already frozen (shared with the previous version). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (ArrayBuffer.isView(value)) return value; // typed arrays cannot be frozen
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
