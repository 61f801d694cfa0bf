import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { GatewayError } from '@svc/gateway-kit/contract';
import {
  CancelListeners,
  checkOptionNames,
  isTerminal,
  JOB_UPDATE_FIELDS,
  type JobStore,
  JobStoreFullError,
  type JobUpdate,
  type JobWriteResult,
  type NewJob,
  type Refuse,
  refusalFor,
  type StoredJob,
  timerMs,
} from '@svc/gateway-kit/store';
import { PostgresCallbackOutbox } from './postgres-callback-outbox.ts';
import {
  CONNECTION_OPTION_NAMES,
  lockClass,
  PostgresConnection,
  type PostgresConnectionOptions,
  type PostgresListenClient,
} from './postgres-connection.ts';
import { RETRY_ALONE, WriteBatcher } from './write-batcher.ts';

/**
 * Options of {@link PostgresJobStore}: the connection (see {@link PostgresConnectionOptions}) plus
 * retention, capacity, leases, cancel delivery and the callback outbox.
 *
 * @example
 * const options: PostgresJobStoreOptions = {
 *   connectionString: process.env.DATABASE_URL,
 *   schema: 'acme_gateway',
 *   retentionMs: 24 * 60 * 60 * 1000,
 *   leaseMs: 30_000,
 * };
 */
export interface PostgresJobStoreOptions extends PostgresConnectionOptions {
  /** How long a finished job stays readable after it finished, in ms. Default 24 h. */
  readonly retentionMs?: number;
  /**
   * Most jobs kept at once (active and finished, across all instances). When full, the
   * earliest-finished job is evicted; if every job is active, `create` rejects with
   * `JobStoreFullError` (503). A positive integer. Default 100 000.
   */
  readonly maxJobs?: number;
  /**
   * Most finished jobs kept per principal (`ownerId`); past it, that principal's earliest-finished
   * jobs are evicted, so one principal's churn never evicts another's. Jobs of approved actions
   * (`approvalId`) have a share of their own. Checked by one terminal write in 8, so a principal
   * may briefly hold a few more. A positive integer. Default 1 000.
   */
  readonly maxFinishedPerOwner?: number;
  /**
   * How long a queued or running job's lease lives without renewal, in ms. The instance that
   * created (and runs) the job renews it every `leaseMs / 3`; once it lapses (the instance died),
   * a sweeper fails the job with `worker_lost`. Default 30 000. Like every duration of the store
   * a timer waits for, whole ms up to 2 147 483 647 (the longest a timer holds).
   */
  readonly leaseMs?: number;
  /**
   * How often this instance looks for jobs with a lapsed lease, for finished jobs nobody
   * announced, and deletes expired rows (in batches), in ms. `0` disables. Default 5000.
   */
  readonly sweepIntervalMs?: number;
  /**
   * How often watched jobs (those with `onCancel` listeners) are re-read, in ms: the fallback
   * that still aborts a runner when a notification was lost or LISTEN is off. Default 1000.
   */
  readonly cancelPollIntervalMs?: number;
  /**
   * Whether cancel notifications arrive by `LISTEN`/`NOTIFY` on a dedicated connection (outside
   * the pool). Turn it off behind a transaction-mode PgBouncer, which cannot LISTEN: cancels then
   * arrive by polling (`cancelPollIntervalMs`). Default `true`.
   */
  readonly listen?: boolean;
  /** How often this instance looks for due callbacks in the outbox, in ms. Default 1000. */
  readonly callbackPollIntervalMs?: number;
  /**
   * Pending callbacks kept at most in the outbox; beyond it a callback ends as `overflow`. A
   * positive integer. Default 100 000. Entries also expire after `retentionMs`.
   */
  readonly maxPendingCallbacks?: number;
  /**
   * Pending callbacks one principal may have in the outbox (its share); beyond it that
   * principal's callbacks end as `overflow`, others' are unaffected. A positive integer.
   * Default 10 000. (A job-result callback written by its job's terminal write is never refused.)
   */
  readonly maxPendingCallbacksPerPrincipal?: number;
  /** Payload bytes of one principal's pending callbacks, at most (a positive integer). Default 32 MiB. */
  readonly maxPendingCallbackBytesPerPrincipal?: number;
  /**
   * Whether a job's terminal write also stores its job-result callback (when its payload names a
   * `jobResultUrl`) in the outbox, in the same transaction, so no crash can come between them.
   * Turn it off when the gateways on this store run with `callbacks: false`. Default `true`.
   */
  readonly transactionalCallbacks?: boolean;
  /** Owner recorded in this instance's leases. Default `hostname:pid:random`. */
  readonly instanceId?: string;
  /** Receives what a cancel listener threw; the other listeners still run. Default `console.error`. */
  readonly onListenerError?: (error: unknown, jobId: string) => void;
}

/** A row of the SQL functions' `job_reply` type. */
interface JobRow {
  readonly result: string;
  readonly job_id: string | null;
  readonly owner_id: string;
  readonly status: StoredJob['status'];
  readonly version: number;
  readonly cancel_requested: boolean;
  readonly updated_at: string;
  readonly [column: string]: unknown;
}

/** A create or update waiting in the write batcher (its JSON fields already encoded). */
type WriteOp =
  | {
      readonly kind: 'create';
      readonly jobId: string;
      readonly ownerId: string;
      readonly status: string;
      /** CREATE_COLUMNS' JSON texts. */
      readonly fields: readonly (string | null)[];
    }
  | {
      readonly kind: 'update';
      readonly jobId: string;
      readonly expected: number;
      readonly status: string | null;
      readonly claim: string | null;
      /** JOB_UPDATE_FIELDS' JSON texts. */
      readonly fields: readonly (string | null)[];
    };

/** A finished job whose end the gateway handed over, and the pre-claimed callbacks it drops. */
interface Announcement {
  readonly jobId: string;
  readonly webhookIds: readonly string[];
  readonly claims: readonly string[];
}

/**
 * The write batcher's budgets: concurrent creates and updates of this instance go to Postgres
 * together, at most 64 writes and 1 MiB of values per statement, at most 2 statements in flight
 * (the others wait for one to return, then go together); at most 10 000 writes or 64 MiB wait,
 * past which a write fails at once with StoreUnavailableError (503, retryable). Every write still
 * settles within commandTimeoutMs of its call.
 */
const WRITE_BATCH = {
  maxItems: 64,
  maxBytes: 1024 * 1024,
  maxInFlight: 2,
  maxQueuedItems: 10_000,
  maxQueuedBytes: 64 * 1024 * 1024,
} as const;

const SWEEP_BATCH = 200;
/** Pages one sweep works through at most; what is left is due at the next one. */
const SWEEP_PAGES = 5;
const DELETE_BATCH = 500;
const noop = (): void => {};

/** JSON columns of the jobs table and the StoredJob fields they hold, in function-argument order. */
const CREATE_COLUMNS = [
  'invocationId',
  'actionId',
  'actionName',
  'createdAt',
  'deadlineAt',
  'outputText',
  'machineSummary',
  'dataSchemaVersion',
  'data',
  'error',
  'payload',
  'approvalId',
  'request',
] as const;
/** Where each of JOB_UPDATE_FIELDS sits in CREATE_COLUMNS (write_jobs shares the arrays). */
const UPDATE_COLUMN_AT = JOB_UPDATE_FIELDS.map((field) => CREATE_COLUMNS.indexOf(field));
const COLUMN_OF: Record<string, string> = {
  invocationId: 'invocation_id',
  actionId: 'action_id',
  actionName: 'action_name',
  createdAt: 'created_at',
  deadlineAt: 'deadline_at',
  outputText: 'output_text',
  machineSummary: 'machine_summary',
  dataSchemaVersion: 'data_schema_version',
  data: 'data',
  error: 'error',
  payload: 'payload',
  approvalId: 'approval_id',
  request: 'request',
};

/**
 * A `JobStore` in PostgreSQL, shared by every gateway instance that uses the same database
 * and schema: a job accepted on one instance can be read and cancelled on any other.
 *
 * - Every write runs a PL/pgSQL function of the schema ({@link migrate} creates them):
 *   create-if-absent, compare-and-set on `version` with the gateway's state machine, cancel +
 *   `NOTIFY` in one transaction. Creates and updates called concurrently on this instance share
 *   one statement and one transaction (at most 64 per statement, 2 statements in flight), each
 *   with its own answer, error and deadline.
 * - A job's terminal write and its job-result callback's outbox entry commit together.
 * - `onCancel` listens with `LISTEN` on one dedicated connection, and re-reads watched jobs every
 *   `cancelPollIntervalMs`, so a lost notification still aborts the runner.
 * - A queued or running job is leased to the instance that created it and renewed until it ends;
 *   when an instance dies, another instance's sweeper (`FOR UPDATE SKIP LOCKED`) fails its jobs
 *   with `worker_lost` (`retryable: true`) once the lease lapsed.
 * - Finished jobs are deleted in batches `retentionMs` after they finished; at most `maxJobs`.
 * - Every call ends within `commandTimeoutMs`; an unreachable database answers
 *   `StoreUnavailableError` (`retryable: true`, a 503 at the gateway).
 *
 * @example
 * import { createGateway } from '@svc/gateway-kit';
 * import { migrate, PostgresJobStore, PostgresRecordStore } from '@svc/gateway-kit-postgres';
 *
 * const connectionString = process.env.DATABASE_URL;
 * await migrate({ connectionString });
 * const gateway = createGateway({
 *   gateway: { id: 'acme', name: 'Acme' },
 *   actions,
 *   auth: { tokens: [process.env.GATEWAY_TOKEN!] },
 *   jobStore: new PostgresJobStore({ connectionString }),
 *   recordStore: new PostgresRecordStore({ connectionString }),
 * });
 */
export class PostgresJobStore implements JobStore {
  /** Owner id written into this instance's leases. */
  readonly instanceId: string;
  /**
   * Pending callbacks in Postgres, shared by every instance: `createGateway` delivers through it,
   * so a callback survives the instance that queued it (at least once, same `webhook-id`).
   */
  readonly callbackOutbox: PostgresCallbackOutbox;
  readonly #db: PostgresConnection;
  readonly #s: string;
  readonly #retentionMs: number;
  readonly #maxJobs: number;
  readonly #maxFinishedPerOwner: number;
  readonly #leaseMs: number;
  readonly #pollIntervalMs: number;
  readonly #listen: boolean;
  readonly #transactionalCallbacks: boolean;
  readonly #channel: string;
  readonly #listeners: CancelListeners;
  readonly #workerLostListeners = new Set<(job: StoredJob) => void>();
  readonly #leased = new Set<string>();
  readonly #writes: WriteBatcher<WriteOp, JobRow>;
  readonly #announcements: WriteBatcher<Announcement, undefined>;
  /** Watched jobs whose first read is due (read together, once per event-loop turn). */
  readonly #toCheck = new Set<string>();
  #listener: PostgresListenClient | undefined;
  #listening: Promise<void> | undefined;
  #renewTimer: ReturnType<typeof setInterval> | undefined;
  #pollTimer: ReturnType<typeof setInterval> | undefined;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  #sweeping = false;
  #closed = false;

  constructor(options: PostgresJobStoreOptions = {}) {
    checkOptionNames('new PostgresJobStore', options, JOB_STORE_OPTION_NAMES);
    const retentionMs = options.retentionMs ?? 24 * 60 * 60 * 1000;
    const maxJobs = options.maxJobs ?? 100_000;
    const leaseMs = options.leaseMs ?? 30_000;
    const sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
    const pollIntervalMs = options.cancelPollIntervalMs ?? 1_000;
    const callbackPollIntervalMs = options.callbackPollIntervalMs ?? 1_000;
    const maxPendingCallbacks = options.maxPendingCallbacks ?? 100_000;
    positiveInteger('retentionMs', retentionMs);
    // Durations timers wait for (the lease is renewed every leaseMs / 3).
    timerMs(refuse, 'leaseMs', leaseMs);
    timerMs(refuse, 'cancelPollIntervalMs', pollIntervalMs);
    timerMs(refuse, 'callbackPollIntervalMs', callbackPollIntervalMs);
    timerMs(refuse, 'sweepIntervalMs', sweepIntervalMs, true);
    // Caps on what callers make us keep are positive integers: 0 is a mistake, not "unbounded".
    positiveInteger('maxPendingCallbacks', maxPendingCallbacks);
    positiveInteger('maxJobs', maxJobs);
    this.#db = new PostgresConnection(options, 'new PostgresJobStore');
    this.#s = this.#db.schema;
    this.#retentionMs = retentionMs;
    this.#maxJobs = maxJobs;
    this.#maxFinishedPerOwner = positiveInteger(
      'maxFinishedPerOwner',
      options.maxFinishedPerOwner ?? 1_000,
    );
    this.#leaseMs = leaseMs;
    this.#pollIntervalMs = pollIntervalMs;
    this.#listen = options.listen ?? true;
    this.#transactionalCallbacks = options.transactionalCallbacks ?? true;
    this.#channel = `${options.schema ?? 'svc_gateway'}_cancel`;
    this.instanceId =
      options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#listeners = new CancelListeners(options.onListenerError);
    this.callbackOutbox = new PostgresCallbackOutbox(this.#db, {
      leaseMs,
      pollIntervalMs: callbackPollIntervalMs,
      maxEntries: maxPendingCallbacks,
      ttlMs: retentionMs,
      maxEntriesPerPrincipal: positiveInteger(
        'maxPendingCallbacksPerPrincipal',
        options.maxPendingCallbacksPerPrincipal ?? 10_000,
      ),
      maxBytesPerPrincipal: positiveInteger(
        'maxPendingCallbackBytesPerPrincipal',
        options.maxPendingCallbackBytesPerPrincipal ?? 32 * 1024 * 1024,
      ),
      lockClass: lockClass('outbox', options.schema),
    });
    this.#writes = new WriteBatcher<WriteOp, JobRow>({
      ...WRITE_BATCH,
      deadlineMs: this.#db.commandTimeoutMs,
      deadlineExceeded: () => this.#db.deadlineExceeded(),
      sendOne: (op) => this.#writeOne(op),
      sendMany: (ops) => this.#writeMany(ops),
    });
    this.#announcements = new WriteBatcher<Announcement, undefined>({
      ...WRITE_BATCH,
      deadlineMs: this.#db.commandTimeoutMs,
      deadlineExceeded: () => this.#db.deadlineExceeded(),
      sendOne: async (announcement) => {
        await this.#announce([announcement]);
        return undefined;
      },
      sendMany: (announcements) => this.#announce(announcements),
    });
    if (sweepIntervalMs > 0) {
      this.#sweepTimer = setInterval(() => void this.#sweepQuietly(), sweepIntervalMs);
      this.#sweepTimer.unref();
    }
  }

  /** Cancel listeners registered on this instance (not yet called or unsubscribed). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Jobs this instance currently holds a lease for. */
  get leasedJobs(): readonly string[] {
    return [...this.#leased];
  }

  async create(input: NewJob): Promise<{ readonly created: boolean; readonly job: StoredJob }> {
    if (input.status !== 'queued' && input.status !== 'running') {
      throw new TypeError(`A job must be created queued or running, not ${String(input.status)}.`);
    }
    const fields = CREATE_COLUMNS.map((field) => encode(input, field));
    const row = await this.#writes.write(
      { kind: 'create', jobId: input.jobId, ownerId: input.ownerId, status: input.status, fields },
      byteLength(input.jobId, input.ownerId, fields),
    );
    if (row.result === 'full') throw new JobStoreFullError(this.#maxJobs);
    const job = decodeJob(row);
    // Queued jobs too: the instance that created one runs it, and keeps it leased until it ends.
    if (row.result === 'created') this.#lease(job.jobId);
    return { created: row.result === 'created', job };
  }

  async get(jobId: string): Promise<StoredJob | undefined> {
    const [row] = await this.#db.query<JobRow>(
      `SELECT (${this.#s}.reply('ok', j)).* FROM ${this.#s}.jobs j
       WHERE j.job_id = $1 AND (j.expires_at IS NULL OR j.expires_at > clock_timestamp())`,
      [jobId],
    );
    return row ? decodeJob(row) : undefined;
  }

  async update(jobId: string, expectedVersion: number, update: JobUpdate): Promise<JobWriteResult> {
    const finishing = update.status !== undefined && isTerminal(update.status);
    const claim = finishing ? this.#callbackClaim() : null;
    const fields = JOB_UPDATE_FIELDS.map((field) => encode(update, field));
    const row = await this.#writes.write(
      {
        kind: 'update',
        jobId,
        expected: expectedVersion,
        status: update.status ?? null,
        claim,
        fields,
      },
      byteLength(jobId, claim, fields),
    );
    const result = toWriteResult(row);
    if (result.ok) {
      // Registered once the write succeeded: a refused write (the cancel won) stored nothing.
      if (claim !== null) this.callbackOutbox.preClaimed(`job_${jobId}_${update.status}`, claim);
      if (!isTerminal(result.job.status)) this.#lease(jobId);
      else {
        this.#leased.delete(jobId);
        // Finishing any other way than requestCancel releases listeners without calling them.
        this.#listeners.release(jobId);
      }
    }
    return result;
  }

  async requestCancel(jobId: string): Promise<JobWriteResult> {
    const claim = this.#callbackClaim();
    const values = [
      jobId,
      this.#retentionMs,
      this.#leaseMs,
      this.#channel,
      claim,
      this.#retentionMs,
      this.#maxFinishedPerOwner,
    ];
    const [row] = await this.#db.query<JobRow>(
      `SELECT * FROM ${this.#s}.cancel_job($1, $2, $3, $4, $5, $6, $7)`,
      values,
    );
    const result = toWriteResult(row!);
    if (result.ok) {
      if (claim !== null) this.callbackOutbox.preClaimed(`job_${jobId}_cancelled`, claim);
      this.#leased.delete(jobId);
      // Listeners on this instance are told before requestCancel resolves; other instances learn
      // it from the NOTIFY (or their polling fallback).
      this.#listeners.deliver(jobId);
    }
    return result;
  }

  onCancel(jobId: string, listener: () => void): () => void {
    if (this.#closed) return noop;
    const unsubscribe = this.#listeners.add(jobId, listener);
    this.#startPolling();
    void this.#checkAfterListening(jobId);
    return unsubscribe;
  }

  /**
   * Fails queued or running jobs whose lease lapsed with `worker_lost` (the sweeper calls this every
   * `sweepIntervalMs`); their job-result callbacks enter the outbox in the same transaction.
   * Returns the ids it failed.
   *
   * @example
   * const failed = await store.sweepExpiredLeases();
   */
  async sweepExpiredLeases(): Promise<string[]> {
    const error: GatewayError = {
      code: 'worker_lost',
      message: 'The gateway instance running this job stopped before it finished.',
      retryable: true,
    };
    const failed: StoredJob[] = [];
    const reporting = this.#workerLostListeners.size > 0;
    for (let page = 0; page < SWEEP_PAGES; page++) {
      // Claimed for this instance when a gateway here hands the callbacks over; else due at once.
      const claim = this.#transactionalCallbacks ? (reporting ? randomUUID() : '') : null;
      const rows = await this.#db.query<JobRow>(
        `SELECT * FROM ${this.#s}.sweep_leases($1, $2, $3, $4, $5, $6, $7)`,
        [
          this.#retentionMs,
          this.#leaseMs,
          JSON.stringify(error),
          claim,
          this.#retentionMs,
          SWEEP_BATCH,
          this.#maxFinishedPerOwner,
        ],
      );
      for (const row of rows) {
        const job = decodeJob(row);
        if (claim) this.callbackOutbox.preClaimed(`job_${job.jobId}_failed`, claim);
        failed.push(job);
      }
      if (rows.length < SWEEP_BATCH) break;
    }
    if (reporting) this.#report(failed);
    return failed.map((job) => job.jobId);
  }

  /**
   * Reports to `onWorkerLost` listeners the finished jobs that were not {@link announced} within
   * `leaseMs` of their terminal write (the instance that finished them died before handing their
   * end over), claiming each for another `leaseMs` so that one instance at a time reports it.
   * Returns the ids it reported.
   *
   * @example
   * const reported = await store.sweepUnannounced();
   */
  async sweepUnannounced(): Promise<string[]> {
    // Without a listener (no gateway on this instance) nothing is claimed: another instance may.
    if (this.#workerLostListeners.size === 0) return [];
    const reported: StoredJob[] = [];
    for (let page = 0; page < SWEEP_PAGES; page++) {
      const rows = await this.#db.query<JobRow>(
        `UPDATE ${this.#s}.jobs j
         SET announce_at = clock_timestamp() + make_interval(secs => $1 / 1000.0)
         WHERE j.job_id IN (
           SELECT job_id FROM ${this.#s}.jobs
           WHERE announce_at <= now() AND expires_at > now()
           ORDER BY announce_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING (${this.#s}.reply('unannounced', j)).*`,
        [this.#leaseMs, SWEEP_BATCH],
      );
      reported.push(...rows.map(decodeJob));
      if (rows.length < SWEEP_BATCH) break;
    }
    this.#report(reported);
    return reported.map((job) => job.jobId);
  }

  /**
   * The gateway handed this finished job's end over (budget released, callback queued): no other
   * instance needs to report it. A job-result callback the terminal write stored and the gateway
   * did not take over (callbacks off, URL refused) is dropped with it.
   *
   * @example
   * await store.announced(job.jobId);
   */
  async announced(jobId: string): Promise<void> {
    const stored = this.callbackOutbox.releasePreClaims(jobId);
    // Concurrent announcements share a statement, like writes (same budgets and deadline).
    await this.#announcements.write(
      { jobId, ...stored },
      byteLength(jobId, stored.webhookIds, stored.claims),
    );
  }

  /**
   * Calls `listener` with every job this instance's sweeps finished as `worker_lost`, and with
   * finished jobs nobody announced (the gateway releases their budget and sends their callbacks).
   * Returns an unsubscribe function.
   *
   * @example
   * const stop = store.onWorkerLost((job) => console.warn(`job ${job.jobId} lost its worker`));
   */
  onWorkerLost(listener: (job: StoredJob) => void): () => void {
    this.#workerLostListeners.add(listener);
    return () => {
      this.#workerLostListeners.delete(listener);
    };
  }

  /**
   * Deletes finished jobs whose retention ran out and outbox entries that expired, in batches of
   * 500 rows (each batch its own short transaction, skipping locked rows). The sweeper calls it
   * every `sweepIntervalMs`. Returns how many jobs it deleted.
   *
   * @example
   * const deleted = await store.deleteExpired();
   */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (let page = 0; page < SWEEP_PAGES; page++) {
      const [row] = await this.#db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM ${this.#s}.jobs WHERE job_id IN (
             SELECT job_id FROM ${this.#s}.jobs WHERE expires_at <= now()
             ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING 1),
         counted AS (
           UPDATE ${this.#s}.counts SET n = n - (SELECT count(*) FROM gone)
           WHERE name = 'jobs' AND shard = pg_backend_pid() % 16)
         SELECT count(*)::int AS n FROM gone`,
        [DELETE_BATCH],
      );
      deleted += row!.n;
      if (row!.n < DELETE_BATCH) break;
    }
    await this.callbackOutbox.deleteExpired(DELETE_BATCH);
    return deleted;
  }

  /**
   * Fail-fast start-up: resolves once the database answers and the schema is migrated; rejects
   * with a `StoreUnavailableError` naming the URL (never its password) when it cannot be reached
   * within `commandTimeoutMs`, or with an error saying the schema is missing. Not calling it
   * starts degraded: calls answer `StoreUnavailableError` (503) until the database is reachable.
   *
   * @example
   * const store = new PostgresJobStore({ connectionString: process.env.DATABASE_URL });
   * await store.ready();
   */
  async ready(): Promise<void> {
    const [row] = await this.#db.query<{ present: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AS present`,
      [`${this.#s}.jobs`],
    );
    if (!row?.present)
      throw new Error(
        `The schema ${this.#s} has no gateway tables: run migrate() or svc-gateway-postgres migrate first.`,
      );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    clearInterval(this.#renewTimer);
    clearInterval(this.#pollTimer);
    this.#listeners.clear();
    this.#workerLostListeners.clear();
    this.#leased.clear();
    this.#writes.close();
    this.#announcements.close();
    this.#toCheck.clear();
    const listener = this.#listener;
    this.#listener = undefined;
    // Not awaited alone: the connection's close() bounds it (a paused server never answers it).
    const ending = listener?.end().catch(noop);
    await this.#db.close();
    await ending;
  }

  /** One create or update as its own statement (the per-row function). */
  async #writeOne(op: WriteOp): Promise<JobRow> {
    const values: unknown[] =
      op.kind === 'create'
        ? [
            op.jobId,
            op.ownerId,
            op.status,
            this.#maxJobs,
            this.instanceId,
            this.#leaseMs,
            ...op.fields,
          ]
        : [
            op.jobId,
            op.expected,
            op.status,
            this.#retentionMs,
            this.instanceId,
            this.#leaseMs,
            op.claim,
            this.#retentionMs,
            ...op.fields,
            this.#maxFinishedPerOwner,
          ];
    const [row] = await this.#db.query<JobRow>(
      `SELECT * FROM ${this.#s}.${op.kind}_job(${placeholders(values.length)})`,
      values,
    );
    return row!;
  }

  /** Several creates and updates as one statement (write_jobs: one transaction, one commit). */
  async #writeMany(ops: readonly WriteOp[]): Promise<(JobRow | typeof RETRY_ALONE)[]> {
    // Parallel arrays, one element per write (write_jobs' argument order).
    const columns: unknown[][] = Array.from({ length: 19 }, () => new Array(ops.length));
    ops.forEach((op, i) => {
      columns[0]![i] = op.kind;
      columns[1]![i] = op.jobId;
      columns[3]![i] = op.status;
      if (op.kind === 'create') {
        columns[2]![i] = op.ownerId;
        columns[4]![i] = null;
        columns[5]![i] = null;
        for (let c = 0; c < CREATE_COLUMNS.length; c++) columns[6 + c]![i] = op.fields[c];
      } else {
        columns[2]![i] = null;
        columns[4]![i] = op.expected;
        columns[5]![i] = op.claim;
        for (let c = 0; c < CREATE_COLUMNS.length; c++) columns[6 + c]![i] = null;
        for (let c = 0; c < UPDATE_COLUMN_AT.length; c++)
          columns[6 + UPDATE_COLUMN_AT[c]!]![i] = op.fields[c];
      }
    });
    const values = [
      ...columns,
      this.#maxJobs,
      this.instanceId,
      this.#leaseMs,
      this.#retentionMs,
      this.#retentionMs,
      this.#maxFinishedPerOwner,
    ];
    const rows = await this.#db.query<JobRow & { ord: number }>(
      `SELECT w.ord, (w.reply).* FROM ${this.#s}.write_jobs(${placeholders(values.length)}) w`,
      values,
    );
    const answers: (JobRow | typeof RETRY_ALONE)[] = new Array(ops.length).fill(RETRY_ALONE);
    for (const row of rows) if (row.result !== 'retry') answers[row.ord - 1] = row;
    return answers;
  }

  /**
   * Marks jobs announced and drops the callbacks their terminal writes stored that the gateway did
   * not take over (`releasePreClaims`), in one statement.
   */
  async #announce(announcements: readonly Announcement[]): Promise<undefined[]> {
    const webhookIds: string[] = [];
    const claims: string[] = [];
    for (const announcement of announcements) {
      webhookIds.push(...announcement.webhookIds);
      claims.push(...announcement.claims);
    }
    await this.#db.query(
      `WITH announced AS (
         UPDATE ${this.#s}.jobs SET announce_at = NULL
         WHERE job_id = ANY($1::text[]) AND announce_at IS NOT NULL)
       DELETE FROM ${this.#s}.outbox o USING unnest($2::text[], $3::text[]) AS u(webhook_id, claim)
       WHERE o.webhook_id = u.webhook_id AND o.claim = u.claim`,
      [announcements.map((announcement) => announcement.jobId).sort(), webhookIds, claims],
    );
    return announcements.map(() => undefined);
  }

  /** The claim under which a terminal write stores this job's callback, or null (none stored). */
  #callbackClaim(): string | null {
    return this.#transactionalCallbacks ? randomUUID() : null;
  }

  #report(jobs: readonly StoredJob[]): void {
    for (const job of jobs) {
      if (!isTerminal(job.status)) continue;
      for (const listener of this.#workerLostListeners) {
        try {
          listener(job);
        } catch (error) {
          this.#db.report(error);
        }
      }
    }
  }

  #lease(jobId: string): void {
    this.#leased.add(jobId);
    if (this.#renewTimer !== undefined || this.#closed) return;
    this.#renewTimer = setInterval(() => void this.#renew(), Math.max(1, this.#leaseMs / 3));
    this.#renewTimer.unref();
  }

  async #renew(): Promise<void> {
    if (this.#leased.size === 0) {
      clearInterval(this.#renewTimer);
      this.#renewTimer = undefined;
      return;
    }
    const ids = [...this.#leased];
    try {
      const renewed = await this.#db.query<{ job_id: string }>(
        `UPDATE ${this.#s}.jobs
         SET lease_owner = $1, lease_expires_at = clock_timestamp() + make_interval(secs => $2 / 1000.0)
         WHERE job_id = ANY($3::text[]) AND finished_seq IS NULL
           AND (lease_owner = $1 OR lease_expires_at < clock_timestamp())
         RETURNING job_id`,
        [this.instanceId, this.#leaseMs, ids],
      );
      // Finished, gone, or leased by another instance: stop renewing.
      const kept = new Set(renewed.map((row) => row.job_id));
      for (const jobId of ids) if (!kept.has(jobId)) this.#leased.delete(jobId);
    } catch (error) {
      // Retried on the next tick; the lease is three renewals long.
      if (!this.#closed) this.#db.report(error);
    }
  }

  async #sweepQuietly(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      // After an outage every lease has lapsed, the live instances' too: sweeping at once would
      // fail their running jobs with worker_lost. So the sweeper waits until the database has
      // answered for a whole lease (renewals go every leaseMs / 3), asking it once meanwhile.
      if (this.#db.answeringForMs() < this.#leaseMs) {
        await this.#db.query('SELECT 1');
        return;
      }
      await this.sweepExpiredLeases();
      await this.sweepUnannounced();
      await this.deleteExpired();
    } catch (error) {
      if (!this.#closed) this.#db.report(error);
    } finally {
      this.#sweeping = false;
    }
  }

  /** Connects the LISTEN connection once; reconnects (and re-reads watched jobs) when it drops. */
  #startListening(): Promise<void> {
    if (!this.#listen || this.#closed) return Promise.resolve();
    this.#listening ??= (async () => {
      const client = this.#db.listenClient();
      client.on('error', noop);
      client.on('notification', (message) => {
        if (message.payload) this.#listeners.deliver(message.payload);
      });
      client.on('end', () => {
        if (this.#listener === client) this.#listener = undefined;
        this.#listening = undefined;
        // Notifications sent meanwhile are lost: the polling fallback covers them; reconnect
        // while someone still listens.
        if (!this.#closed && this.#listeners.size > 0) {
          const retry = setTimeout(() => void this.#startListening().catch(noop), 500);
          retry.unref();
        }
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          (async () => {
            await client.connect();
            await client.query(`LISTEN "${this.#channel}"`);
          })(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error('LISTEN timed out')),
              this.#db.commandTimeoutMs,
            );
          }),
        ]);
      } catch (error) {
        client.end().catch(noop);
        this.#listening = undefined;
        throw error;
      } finally {
        clearTimeout(timer);
      }
      if (this.#closed) {
        await client.end().catch(noop);
        return;
      }
      this.#listener = client;
      void this.#poll();
    })();
    return this.#listening;
  }

  async #checkAfterListening(jobId: string): Promise<void> {
    // Listen first, then read: a cancel is either in the state read or in a later notification.
    await this.#startListening().catch(noop);
    // Jobs watched in the same turn are read by one statement.
    if (this.#toCheck.size === 0)
      setImmediate(() => {
        const jobIds = [...this.#toCheck];
        this.#toCheck.clear();
        void this.#check(jobIds);
      });
    this.#toCheck.add(jobId);
  }

  /** Re-reads watched jobs: delivers cancellations, drops listeners that can never fire. */
  async #check(jobIds: string[]): Promise<void> {
    if (this.#closed || jobIds.length === 0) return;
    let rows: { job_id: string; status: string; cancel_requested: boolean }[];
    try {
      rows = await this.#db.query(
        `SELECT job_id, status, cancel_requested FROM ${this.#s}.jobs
         WHERE job_id = ANY($1::text[]) AND (expires_at IS NULL OR expires_at > clock_timestamp())`,
        [jobIds],
      );
    } catch {
      return; // Unreachable: the next poll tries again.
    }
    const found = new Map(rows.map((row) => [row.job_id, row]));
    for (const jobId of jobIds) {
      const row = found.get(jobId);
      if (row?.cancel_requested) this.#listeners.deliver(jobId);
      // Unknown, expired or finished without a cancel: such a listener would only leak.
      else if (!row || isTerminal(row.status as StoredJob['status']))
        this.#listeners.release(jobId);
    }
  }

  async #poll(): Promise<void> {
    await this.#check(this.#listeners.jobIds());
  }

  #startPolling(): void {
    if (this.#pollTimer !== undefined) return;
    this.#pollTimer = setInterval(() => {
      if (this.#listeners.size > 0) {
        if (this.#listen && !this.#listener) void this.#startListening().catch(noop);
        void this.#poll();
        return;
      }
      clearInterval(this.#pollTimer);
      this.#pollTimer = undefined;
    }, this.#pollIntervalMs);
    this.#pollTimer.unref();
  }
}

const refuse: Refuse = refusalFor('new PostgresJobStore');

/** The names of {@link PostgresJobStoreOptions}: any other is refused (a misspelt one would be ignored). */
const JOB_STORE_OPTION_NAMES: readonly string[] = [
  ...CONNECTION_OPTION_NAMES,
  ...Object.keys({
    retentionMs: true,
    maxJobs: true,
    maxFinishedPerOwner: true,
    leaseMs: true,
    sweepIntervalMs: true,
    cancelPollIntervalMs: true,
    listen: true,
    callbackPollIntervalMs: true,
    maxPendingCallbacks: true,
    maxPendingCallbacksPerPrincipal: true,
    maxPendingCallbackBytesPerPrincipal: true,
    transactionalCallbacks: true,
    instanceId: true,
    onListenerError: true,
  } satisfies Record<
    Exclude<keyof PostgresJobStoreOptions, keyof PostgresConnectionOptions>,
    true
  >),
];

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    refuse(name, value, `expected a positive integer${name.endsWith('Ms') ? ' (ms)' : ''}.`);
  return value;
}

/** UTF-8 bytes of a write's values (what the write batcher budgets). */
function byteLength(...values: (string | null | readonly (string | null)[])[]): number {
  let bytes = 0;
  for (const value of values)
    if (typeof value === 'string') bytes += Buffer.byteLength(value);
    else if (value !== null)
      for (const item of value) if (item !== null) bytes += Buffer.byteLength(item);
  return bytes;
}

function placeholders(count: number): string {
  return Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ');
}

/** The JSON text of `source[key]`, or null when it is not set; rejects values JSON cannot hold. */
function encode(source: object, key: string): string | null {
  const value = (source as Record<string, unknown>)[key];
  if (value === undefined) return null;
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`Job field ${key} is not JSON-serialisable.`);
  return json;
}

function decodeJob(row: JobRow): StoredJob {
  const job: Record<string, unknown> = {
    jobId: row.job_id,
    ownerId: row.owner_id,
    status: row.status,
    version: row.version,
    cancelRequested: row.cancel_requested,
    updatedAt: row.updated_at,
  };
  for (const field of CREATE_COLUMNS) {
    const text = row[COLUMN_OF[field]!];
    if (typeof text === 'string') job[field] = JSON.parse(text);
  }
  return job as unknown as StoredJob;
}

function toWriteResult(row: JobRow): JobWriteResult {
  if (row.result === 'ok') return { ok: true, job: decodeJob(row) };
  const reason = row.result as 'not_found' | 'conflict' | 'invalid_transition';
  return row.job_id === null ? { ok: false, reason } : { ok: false, reason, job: decodeJob(row) };
}
