import {
  CancelListeners,
  canTransition,
  checkOptionNames,
  isTerminal,
  JOB_UPDATE_FIELDS,
  type JobStore,
  JobStoreFullError,
  type JobUpdate,
  type JobWriteResult,
  NEW_JOB_FIELDS,
  type NewJob,
  type StoredJob,
} from '@svc/gateway-kit/store';
import type { DurableCallbackOutbox } from './durable-callback-outbox.ts';
import type { DurableStorage, SqlStorage } from './durable-storage.ts';
import { optionChecks, utf8Bytes } from './time.ts';
import { trackUsage, type Usage } from './usage.ts';

const check = optionChecks('new DurableJobStore');

/**
 * Options of {@link DurableJobStore}.
 *
 * @example
 * const options: DurableJobStoreOptions = { maxJobs: 1_000, retentionMs: 60 * 60 * 1000 };
 */
export interface DurableJobStoreOptions {
  /** Prefix of the store's SQLite tables (letters, digits, `_`). Default `gw_`. */
  readonly prefix?: string;
  /** Most jobs kept at once, active and finished. Default 10 000. */
  readonly maxJobs?: number;
  /** Most bytes of jobs kept at once (their JSON). Default 64 MiB. */
  readonly maxBytes?: number;
  /** How long a finished job stays readable after it finished, in ms. Default 24 h. */
  readonly retentionMs?: number;
  /**
   * Most finished jobs kept per principal (`ownerId`): past it, that principal's earliest-finished
   * job is deleted, so one principal's churn never evicts another's. Jobs of approved actions
   * (`approvalId`) have a share of their own. Default 1 000.
   */
  readonly maxFinishedPerOwner?: number;
  /** Clock in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
  /** Receives what a cancel listener threw; the other listeners still run. Default `console.error`. */
  readonly onListenerError?: (error: unknown, jobId: string) => void;
  /**
   * How many times a job left unfinished may be handed out to run again (`onOrphaned`); the next
   * time it is failed `worker_lost` instead, so an action that always outlives its invocation
   * (CPU or wall-time limit) is not run forever. Default 3.
   */
  readonly maxResumes?: number;
  /** The outbox to offer the gateway as `callbackOutbox` (see {@link DurableCallbackOutbox}). */
  readonly callbackOutbox?: DurableCallbackOutbox;
}

/** The names of {@link DurableJobStoreOptions}: any other is refused (a misspelt one would be ignored). */
const JOB_STORE_OPTION_NAMES: readonly string[] = Object.keys({
  prefix: true,
  maxJobs: true,
  maxBytes: true,
  retentionMs: true,
  maxFinishedPerOwner: true,
  now: true,
  onListenerError: true,
  maxResumes: true,
  callbackOutbox: true,
} satisfies Record<keyof DurableJobStoreOptions, true>);

/** The limits a {@link DurableJobStore} keeps: its options' values, checked, or their defaults. */
interface JobStoreLimits {
  readonly maxJobs: number;
  readonly maxBytes: number;
  readonly retentionMs: number;
  readonly maxFinishedPerOwner: number;
  readonly maxResumes: number;
}

/**
 * Checks the values of a {@link DurableJobStore}'s limits and `onListenerError` (not the option
 * names), as its constructor does, and returns the limits with their defaults. The refusals are
 * `factory`'s, each option named after `path`: the gateway object checks its `stores.jobs` with
 * this when the Worker's module loads (`createGatewayWorker: stores.jobs.maxJobs is the number
 * -1: …`), so that no object is refused them later. Throws `GatewayConfigError`.
 */
export function jobStoreLimits(
  options: DurableJobStoreOptions,
  factory = 'new DurableJobStore',
  path = '',
): JobStoreLimits {
  const checks = optionChecks(factory);
  const limits = {
    maxJobs: checks.positiveInteger(`${path}maxJobs`, options.maxJobs ?? 10_000),
    maxBytes: checks.positiveInteger(`${path}maxBytes`, options.maxBytes ?? 64 * 1024 * 1024),
    retentionMs: checks.positiveInteger(
      `${path}retentionMs`,
      options.retentionMs ?? 24 * 60 * 60 * 1000,
    ),
    maxFinishedPerOwner: checks.positiveInteger(
      `${path}maxFinishedPerOwner`,
      options.maxFinishedPerOwner ?? 1_000,
    ),
    maxResumes: options.maxResumes ?? 3,
  };
  // Not a cap on what callers make us keep: 0 is meaningful (never run a job again).
  if (!Number.isSafeInteger(limits.maxResumes) || limits.maxResumes < 0)
    checks.refuse(`${path}maxResumes`, limits.maxResumes, 'expected an integer ≥ 0.');
  // Called only when a cancel listener throws: a wrong value would surface then, not here.
  if (options.onListenerError !== undefined && typeof options.onListenerError !== 'function')
    checks.refuse(`${path}onListenerError`, options.onListenerError, 'expected a function.');
  return limits;
}

interface JobRow extends Record<string, string | number | null> {
  id: string;
  job: string;
  status: string;
  finished_at: number | null;
  announced: number;
  runner: string;
  resumes: number;
}

const ACTIVE = "('queued','running')";
const noop = (): void => {};

/**
 * A `JobStore` (`@svc/gateway-kit/store`) on a Durable Object's SQLite storage. A Durable Object is one instance at a
 * time, so everything a gateway instance shares (compare-and-set, cancel notification) happens in
 * this object: each method is a few synchronous SQL statements in one transaction, strongly
 * consistent and never interleaved with another request.
 *
 * What an in-memory store cannot do, this one does: jobs outlive the instance. The object can be
 * evicted or restarted at any time; every instance has its own `incarnation`, stamped on each job
 * it writes, and {@link recover} (the Durable Object calls it on start and on every alarm) reports
 * what an earlier incarnation left behind: queued and running jobs to `onOrphaned` listeners (the
 * gateway runs them again when that is safe, or fails them `worker_lost`), finished jobs whose end
 * was never announced to `onWorkerLost` listeners (the gateway sends their callback).
 *
 * @example
 * export class GatewayObject extends DurableObject {
 *   jobs = new DurableJobStore(this.ctx.storage, { retentionMs: 60 * 60 * 1000 });
 * }
 */
export class DurableJobStore implements JobStore {
  /** This instance's id: jobs written by another incarnation and left active are orphans. */
  readonly incarnation: string = crypto.randomUUID();
  readonly callbackOutbox?: DurableCallbackOutbox;
  readonly #storage: DurableStorage;
  readonly #sql: SqlStorage;
  readonly #table: string;
  readonly #maxJobs: number;
  readonly #maxBytes: number;
  readonly #retentionMs: number;
  readonly #maxResumes: number;
  readonly #maxFinishedPerOwner: number;
  readonly #now: () => number;
  readonly #listeners: CancelListeners;
  readonly #orphanListeners = new Set<(job: StoredJob) => void>();
  readonly #workerLostListeners = new Set<(job: StoredJob) => void>();
  readonly #usage: () => Usage;

  constructor(storage: DurableStorage, options: DurableJobStoreOptions = {}) {
    checkOptionNames('new DurableJobStore', options, JOB_STORE_OPTION_NAMES);
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#table = `${check.tablePrefix(options.prefix ?? 'gw_')}jobs`;
    const limits = jobStoreLimits(options);
    this.#maxJobs = limits.maxJobs;
    this.#maxBytes = limits.maxBytes;
    this.#retentionMs = limits.retentionMs;
    this.#maxFinishedPerOwner = limits.maxFinishedPerOwner;
    this.#maxResumes = limits.maxResumes;
    this.#now = check.clock(options.now);
    this.#listeners = new CancelListeners(options.onListenerError);
    if (options.callbackOutbox) this.callbackOutbox = options.callbackOutbox;
    const t = this.#table;
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, job TEXT NOT NULL, bytes INTEGER NOT NULL,
        status TEXT NOT NULL, finished_at INTEGER, finish_seq INTEGER, announced INTEGER NOT NULL, runner TEXT NOT NULL,
        resumes INTEGER NOT NULL DEFAULT 0, grp TEXT)`,
    );
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS ${t}_finished ON ${t} (finished_at, finish_seq)`);
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS ${t}_status ON ${t} (status)`);
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS ${t}_group ON ${t} (grp, finished_at, finish_seq)`);
    this.#usage = trackUsage(this.#sql, t, true);
  }

  async create(input: NewJob): Promise<{
    /** `false` when a job with this id existed already. */
    readonly created: boolean;
    /** The job as stored: the new one, or the one that existed. */
    readonly job: StoredJob;
  }> {
    if (input.status !== 'queued' && input.status !== 'running') {
      throw new TypeError(`A job must be created queued or running, not ${String(input.status)}.`);
    }
    // Cloned first, so that a value no store can hold (a function) leaves no trace.
    const fields = structuredClone(pick(input, NEW_JOB_FIELDS));
    const now = this.#now();
    return this.#storage.transactionSync(() => {
      const existing = this.#live(input.jobId, now);
      if (existing) return { created: false, job: parse(existing) };
      const job = {
        ...fields,
        status: input.status,
        version: 1,
        updatedAt: new Date(now).toISOString(),
        cancelRequested: false,
      } as StoredJob;
      const json = JSON.stringify(job);
      const bytes = utf8Bytes(json);
      this.#makeRoom(bytes, true, now);
      this.#sql.exec(
        `INSERT INTO ${this.#table} (id, job, bytes, status, finished_at, announced, runner)
         VALUES (?, ?, ?, ?, NULL, 1, ?)`,
        job.jobId,
        json,
        bytes,
        job.status,
        this.incarnation,
      );
      return { created: true, job: JSON.parse(json) as StoredJob };
    });
  }

  async get(jobId: string): Promise<StoredJob | undefined> {
    const row = this.#live(jobId, this.#now());
    return row ? parse(row) : undefined;
  }

  async update(jobId: string, expectedVersion: number, update: JobUpdate): Promise<JobWriteResult> {
    const patch = structuredClone(pick(update, JOB_UPDATE_FIELDS));
    const now = this.#now();
    const result = this.#storage.transactionSync((): JobWriteResult => {
      const row = this.#live(jobId, now);
      if (!row) return { ok: false, reason: 'not_found' };
      const current = parse(row);
      if (current.version !== expectedVersion)
        return { ok: false, reason: 'conflict', job: current };
      const allowed =
        update.status === undefined
          ? !isTerminal(current.status)
          : canTransition(current.status, update.status);
      if (!allowed) return { ok: false, reason: 'invalid_transition', job: current };
      return {
        ok: true,
        job: this.#write(row, current, { ...patch, status: update.status ?? current.status }, now),
      };
    });
    // Finishing any other way than requestCancel releases listeners without calling them.
    if (result.ok && isTerminal(result.job.status)) this.#listeners.release(jobId);
    return result;
  }

  async requestCancel(jobId: string): Promise<JobWriteResult> {
    const now = this.#now();
    const result = this.#storage.transactionSync((): JobWriteResult => {
      const row = this.#live(jobId, now);
      if (!row) return { ok: false, reason: 'not_found' };
      const current = parse(row);
      if (isTerminal(current.status))
        return { ok: false, reason: 'invalid_transition', job: current };
      return {
        ok: true,
        job: this.#write(row, current, { status: 'cancelled', cancelRequested: true }, now),
      };
    });
    if (result.ok) this.#listeners.deliver(jobId);
    return result;
  }

  onCancel(jobId: string, listener: () => void): () => void {
    const row = this.#live(jobId, this.#now());
    const job = row ? parse(row) : undefined;
    if (!job || (isTerminal(job.status) && !job.cancelRequested)) return noop;
    if (job.cancelRequested) return this.#listeners.addCancelled(jobId, listener);
    return this.#listeners.add(jobId, listener);
  }

  /**
   * Calls `listener` with each queued or running job an earlier incarnation of the object left
   * (found by {@link recover}). The gateway runs it again (it never started, or its action is
   * idempotent) or fails it `worker_lost`.
   */
  onOrphaned(listener: (job: StoredJob) => void): () => void {
    this.#orphanListeners.add(listener);
    return () => this.#orphanListeners.delete(listener);
  }

  /**
   * Calls `listener` with each job that finished under an earlier incarnation whose end was not
   * {@link announced} (its callback may not have been handed over), and with each orphan this
   * store failed `worker_lost` itself (when nobody listens to {@link onOrphaned}).
   */
  onWorkerLost(listener: (job: StoredJob) => void): () => void {
    this.#workerLostListeners.add(listener);
    return () => this.#workerLostListeners.delete(listener);
  }

  async announced(jobId: string): Promise<void> {
    this.#sql.exec(`UPDATE ${this.#table} SET announced = 1 WHERE id = ?`, jobId);
  }

  /**
   * Takes over what earlier incarnations of the object left (see the class description) and
   * reports each such job once to this incarnation's listeners. Returns how many it reported.
   *
   * @example
   * await jobs.recover(); // in the Durable Object's constructor and alarm
   */
  async recover(): Promise<number> {
    const now = this.#now();
    const found = this.#storage.transactionSync(() => {
      const rows = this.#sql
        .exec<JobRow>(
          `SELECT * FROM ${this.#table} WHERE runner != ?
             AND (status IN ${ACTIVE} OR announced = 0) LIMIT 1000`,
          this.incarnation,
        )
        .toArray();
      const orphans: StoredJob[] = [];
      const unannounced: StoredJob[] = [];
      for (const row of rows) {
        let job = parse(row);
        const active = !isTerminal(job.status);
        if (active && (this.#orphanListeners.size === 0 || row.resumes >= this.#maxResumes)) {
          // Nobody can run it again, or it was run again too often: it ends here, and its end is
          // reported like any other.
          job = this.#write(row, job, { status: 'failed', error: WORKER_LOST }, now);
          unannounced.push(job);
        } else {
          this.#sql.exec(
            `UPDATE ${this.#table} SET runner = ?, resumes = resumes + ? WHERE id = ?`,
            this.incarnation,
            active ? 1 : 0,
            row.id,
          );
          (isTerminal(job.status) ? unannounced : orphans).push(job);
        }
      }
      return { orphans, unannounced };
    });
    for (const job of found.orphans) for (const listener of this.#orphanListeners) listener(job);
    for (const job of found.unannounced)
      for (const listener of this.#workerLostListeners) listener(job);
    return found.orphans.length + found.unannounced.length;
  }

  /** Whether queued or running jobs exist (the Durable Object keeps a watch alarm while they do). */
  hasActiveJobs(): boolean {
    return (
      this.#sql.exec(`SELECT 1 FROM ${this.#table} WHERE status IN ${ACTIVE} LIMIT 1`).toArray()
        .length > 0
    );
  }

  /**
   * Deletes finished jobs past their retention. Returns when the next one is due (epoch ms), if any.
   */
  sweep(): number | undefined {
    const now = this.#now();
    this.#sql.exec(
      `DELETE FROM ${this.#table} WHERE finished_at IS NOT NULL AND finished_at <= ? AND announced = 1`,
      now - this.#retentionMs,
    );
    const next = this.#sql
      .exec<{ at: number | null }>(`SELECT MIN(finished_at) AS at FROM ${this.#table}`)
      .one().at;
    return next === null ? undefined : next + this.#retentionMs;
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#orphanListeners.clear();
    this.#workerLostListeners.clear();
  }

  /** The row of `jobId` unless it is a finished job past its retention. */
  #live(jobId: string, now: number): JobRow | undefined {
    const row = this.#sql
      .exec<JobRow>(`SELECT * FROM ${this.#table} WHERE id = ?`, jobId)
      .toArray()[0];
    if (!row) return undefined;
    if (row.finished_at !== null && now - row.finished_at >= this.#retentionMs) return undefined;
    return row;
  }

  #write(
    row: JobRow,
    current: StoredJob,
    patch: Partial<
      Pick<StoredJob, 'status' | 'cancelRequested' | (typeof JOB_UPDATE_FIELDS)[number]>
    >,
    now: number,
  ): StoredJob {
    const next: Record<string, unknown> = {
      ...current,
      ...patch,
      version: current.version + 1,
      updatedAt: new Date(now).toISOString(),
    };
    const finished = isTerminal(next.status as StoredJob['status']);
    // A finished job keeps nothing the caller sent (the JobStore contract).
    if (finished) delete next.request;
    const job = next as unknown as StoredJob;
    const json = JSON.stringify(job);
    const bytes = utf8Bytes(json);
    this.#makeRoom(bytes - Number(row.bytes), false, now, row.id);
    const group = finished ? retentionGroup(job) : null;
    this.#sql.exec(
      `UPDATE ${this.#table} SET job = ?, bytes = ?, status = ?, finished_at = ?, announced = ?, runner = ?,
         finish_seq = CASE WHEN ? THEN (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM ${this.#table}) END,
         grp = ?
       WHERE id = ?`,
      json,
      bytes,
      job.status,
      finished ? now : null,
      finished ? 0 : 1,
      this.incarnation,
      finished ? 1 : 0,
      group,
      row.id,
    );
    if (group !== null) {
      // The principal's share: its own earliest-finished job makes room, nobody else's.
      const count = this.#sql
        .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${this.#table} WHERE grp = ?`, group)
        .one().n;
      if (count > this.#maxFinishedPerOwner) {
        this.#sql.exec(
          `DELETE FROM ${this.#table} WHERE id = (SELECT id FROM ${this.#table} WHERE grp = ?
             ORDER BY finished_at, finish_seq LIMIT 1)`,
          group,
        );
      }
    }
    return JSON.parse(json) as StoredJob;
  }

  /**
   * Frees room for `bytes` more (and a new row when `newRow`): expired jobs first, then the
   * earliest-finished ones; rejects with JobStoreFullError when only active jobs are left.
   */
  #makeRoom(bytes: number, newRow: boolean, now: number, keep?: string): void {
    const t = this.#table;
    const usage = this.#usage;
    let { n, bytes: used } = usage();
    if ((!newRow || n < this.#maxJobs) && used + bytes <= this.#maxBytes) return;
    this.#sql.exec(
      `DELETE FROM ${t} WHERE finished_at IS NOT NULL AND finished_at <= ?`,
      now - this.#retentionMs,
    );
    ({ n, bytes: used } = usage());
    while ((newRow && n >= this.#maxJobs) || used + bytes > this.#maxBytes) {
      // The earliest-finished job of the principal holding the most finished jobs: a principal
      // with few is the last to lose any.
      const heaviest = this.#sql
        .exec<{ grp: string }>(
          `SELECT grp FROM ${t} WHERE grp IS NOT NULL AND id != ?
           GROUP BY grp ORDER BY COUNT(*) DESC, MIN(finished_at) LIMIT 1`,
          keep ?? '',
        )
        .toArray()[0];
      const oldest = heaviest
        ? this.#sql
            .exec<{ id: string; bytes: number }>(
              `SELECT id, bytes FROM ${t} WHERE grp = ? AND id != ?
               ORDER BY finished_at, finish_seq LIMIT 1`,
              heaviest.grp,
              keep ?? '',
            )
            .toArray()[0]
        : undefined;
      if (!oldest) throw new JobStoreFullError(this.#maxJobs);
      this.#sql.exec(`DELETE FROM ${t} WHERE id = ?`, oldest.id);
      n -= 1;
      used -= oldest.bytes;
    }
  }
}

const WORKER_LOST = {
  code: 'worker_lost',
  message: 'The instance running this job stopped before it finished.',
  retryable: true,
} as const;

/** Whose share a finished job counts against: its principal's, or its approvals' own. */
function retentionGroup(job: StoredJob): string {
  return job.approvalId === undefined ? job.ownerId : `${job.ownerId}\napproved`;
}

function parse(row: JobRow): StoredJob {
  return JSON.parse(row.job) as StoredJob;
}

function pick<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}
