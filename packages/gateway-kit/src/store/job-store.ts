import type { GatewayError } from '../contract/gateway-error.ts';
import type { JobStatus } from '../contract/job.ts';
import type { CallbackOutbox } from '../runtime/callback-outbox.ts';

/**
 * A job as a {@link JobStore} keeps it: the contract's job resource plus what the gateway needs to
 * run it and to scope it. Records are plain JSON-serialisable data so that any store can hold them.
 */
export interface StoredJob {
  /** The job's id (`job_…`), unique in the store. */
  readonly jobId: string;
  /** The principal that created the job; only it may read or cancel the job. */
  readonly ownerId: string;
  /** `invocationId` of the request that created the job. */
  readonly invocationId: string;
  /** Id of the action the job runs. */
  readonly actionId: string;
  /** Name of the action the job runs. */
  readonly actionName: string;
  /** The job's current status; see {@link canTransition} for the allowed changes. */
  readonly status: JobStatus;
  /** Starts at 1 and grows by one with every change: the compare-and-set token. */
  readonly version: number;
  /** ISO 8601 UTC timestamps (`new Date().toISOString()`). */
  readonly createdAt: string;
  /** When the job last changed (ISO 8601 UTC); set by the store on every write. */
  readonly updatedAt: string;
  /** Set once cancellation was requested; never unset. */
  readonly cancelRequested: boolean;
  /** The request's `deadlineAt` (RFC 3339), when it sent one. */
  readonly deadlineAt?: string;
  /** Text the assistant may say: the latest progress text, or the result's. */
  readonly outputText?: string;
  /** A compact form for the model: the latest progress summary, or the result's. */
  readonly machineSummary?: string;
  /** Version label of the shape of `data`, when the action completed with one. */
  readonly dataSchemaVersion?: string;
  /** The result as a JSON object, when the action completed with one. */
  readonly data?: Record<string, unknown>;
  /** Why the job failed, for `failed`. */
  readonly error?: GatewayError;
  /**
   * The approval this job runs, when an operator approved it. Its finished job is retained apart
   * from the principal's other finished jobs (their churn never evicts it), so the approval's job
   * link resolves as long as the approval does.
   */
  readonly approvalId?: string;
  /** Opaque JSON the gateway stores with the job (callbacks, fingerprint). Stores never read it. */
  readonly payload?: Record<string, unknown>;
  /**
   * What the caller sent for the run (the action input and the invocation with its `context`),
   * as opaque text the gateway encodes: kept as text, not parsed objects, so a job holds about its
   * size in bytes. Stores never read it, and **drop it on every transition to a terminal state**
   * (completed, failed, cancelled, and a store's own `worker_lost`): a finished job keeps nothing
   * the caller sent.
   */
  readonly request?: string;
}

/** What {@link JobStore.create} needs: everything but the fields the store owns. */
export type NewJob = Omit<StoredJob, 'version' | 'updatedAt' | 'cancelRequested' | 'status'> & {
  /** A job is created `queued` or `running`, never terminal. */
  readonly status: 'queued' | 'running';
};

/** The fields a transition may set. `status` must be a legal next state (see {@link canTransition}). */
export interface JobUpdate
  extends Partial<
    Pick<
      StoredJob,
      'status' | 'outputText' | 'machineSummary' | 'dataSchemaVersion' | 'data' | 'error'
    >
  > {
  /**
   * Replaces the opaque payload: the gateway slims it on the terminal write, so a finished job
   * keeps only what follow-ups need (callbacks, fingerprint), not the input and context.
   */
  readonly payload?: Record<string, unknown>;
}

/**
 * A new job's claim on its owner's budgets, for {@link JobStore.create} of a store that
 * {@link JobStore.claimsJobQuotas}. The job is refused when its owner already has `maxActive`
 * queued or running jobs, or when its `units` would take the owner's held units past `maxUnits`.
 */
export interface JobQuotaClaim {
  /** Most queued or running jobs the owner may have (the gateway's `quotas.activeJobs`). */
  readonly maxActive: number;
  /** What the job holds of the caller's request, in units of 16 KiB (at least 1). */
  readonly units: number;
  /** Most units the owner's queued or running jobs may hold (`quotas.heldBytes` / 16 KiB). */
  readonly maxUnits: number;
  /** The claim frees itself this long after the create at the latest (the job's timeout and a margin). */
  readonly ttlMs: number;
}

/** The outcome of a compare-and-set operation. */
export type JobWriteResult =
  | {
      /** The write happened. */
      readonly ok: true;
      /** The job as written, with its new `version`. */
      readonly job: StoredJob;
    }
  | {
      /** Nothing was written; `reason` says why. */
      readonly ok: false;
      /** `not_found`: no such job; `conflict`: the version moved on; `invalid_transition`: the state machine forbids it. */
      readonly reason: 'not_found' | 'conflict' | 'invalid_transition';
      /** The job as stored now; absent for `not_found`. */
      readonly job?: StoredJob;
    };

/**
 * Where jobs live. The gateway relies on these guarantees, and the conformance suite
 * (`jobStoreConformance` in `@svc/gateway-kit/testing`) checks them for any adapter:
 *
 * - `create` is atomic create-if-absent by `jobId` (two racing creates: one wins, both see it).
 * - A job is readable by `get` as soon as `create` resolves.
 * - `update` is a compare-and-set on `version` that also enforces the state machine
 *   `queued → running | cancelled | failed`, `running → completed | failed | cancelled`;
 *   terminal states never change, and every successful write increments `version`.
 * - Every transition to a terminal state (`update`, `requestCancel`, a store's own `worker_lost`)
 *   removes `request`, the caller's input and context, in the same write.
 * - `requestCancel` atomically moves a queued or running job to `cancelled`, sets
 *   `cancelRequested`, and notifies `onCancel` listeners of that job (on any instance that
 *   shares the store); it returns `invalid_transition` for a terminal job.
 * - Finished jobs are kept for the store's retention period, then removed; the store stays bounded.
 */
export interface JobStore {
  /**
   * Creates `job` unless a job with its id exists (then answers that job, `created: false`). With
   * `claim` (only when `claimsJobQuotas` is true) it first takes the job's budgets, atomically
   * with the create, and rejects with a `JobQuotaError` having written nothing when one is spent.
   */
  create(
    job: NewJob,
    claim?: JobQuotaClaim,
  ): Promise<{
    /** `false` when a job with this id existed already. */
    readonly created: boolean;
    /** The job as stored: the new one, or the one that existed. */
    readonly job: StoredJob;
  }>;
  /**
   * Optional: `true` when the store keeps its owners' `activeJobs` and `heldBytes` budgets itself.
   * `create(job, claim)` then takes a new job's budgets in the same atomic step as the create, and
   * every transition to a terminal state (`update`, `requestCancel`, a store's own `worker_lost`)
   * gives them back in the same write; a claim whose job's end is never written frees itself after
   * `claim.ttlMs`. The gateway then claims nothing for jobs in its `RecordStore`: one round trip
   * less per job to accept, and one less per job that ends. Counted per owner across every
   * instance that shares the store, as exact as the record store's claims.
   */
  readonly claimsJobQuotas?: boolean;
  /** The job, or `undefined` when there is none (never created, or removed after its retention). */
  get(jobId: string): Promise<StoredJob | undefined>;
  /** Compare-and-set. Without `status` it patches fields of a non-terminal job (progress). */
  update(jobId: string, expectedVersion: number, update: JobUpdate): Promise<JobWriteResult>;
  /**
   * Moves a queued or running job to `cancelled` and sets `cancelRequested`, then calls its
   * `onCancel` listeners; `invalid_transition` for a terminal job, `not_found` for none.
   */
  requestCancel(jobId: string): Promise<JobWriteResult>;
  /**
   * Calls `listener` once when cancellation of `jobId` is requested, also when that happened
   * before the call (the gateway subscribes only once a job's action reads its `signal` or reports
   * progress). Returns an unsubscribe function.
   */
  onCancel(jobId: string, listener: () => void): () => void;
  /**
   * Optional, for stores that finish jobs whose instance died (a distributed store). Calls
   * `listener` with each job whose end no live instance reported, so that the gateway releases its
   * budget and sends its job-result callback: a running job this store failed with `worker_lost`
   * (its lease lapsed), and a job that reached a terminal state but was not {@link announced}
   * within the lease (the instance that finished it died before handing its callback over). Each
   * such job is reported by one instance at a time. Returns an unsubscribe function.
   */
  onWorkerLost?(listener: (job: StoredJob) => void): () => void;
  /**
   * Optional, for stores that outlive the instance running their jobs and restart it in place (a
   * Durable Object evicted or restarted): calls `listener` with each queued or running job an
   * earlier instance left unfinished. The gateway starts a queued job (its action never ran), runs
   * a running job again when its action is `idempotent`, and fails any other with `worker_lost`.
   * Each such job is reported once. Returns an unsubscribe function.
   */
  onOrphaned?(listener: (job: StoredJob) => void): () => void;
  /**
   * Optional, with {@link onWorkerLost}: the gateway calls it once a finished job's end was handed
   * over (budget released, callback queued, delivered or given up). A terminal write and this call
   * are two steps; a store that keeps finished-but-unannounced jobs and reports them after the
   * lease closes the gap between them, so a callback survives an instance killed in between.
   */
  announced?(jobId: string): Promise<void>;
  /**
   * Optional, for stores shared by several instances: where pending callbacks wait, so that they
   * survive the instance that queued them. `createGateway` delivers through it unless
   * `callbacks.outbox` says otherwise.
   */
  readonly callbackOutbox?: CallbackOutbox;
  /** Releases timers and connections. */
  close(): Promise<void>;
}

/**
 * The fields a store copies from a {@link NewJob}: everything a caller may set at creation. Stores
 * copy only these, so a caller can never set `version`, `updatedAt` or `cancelRequested`.
 *
 * @example
 * for (const field of NEW_JOB_FIELDS) if (job[field] !== undefined) record[field] = job[field];
 */
export const NEW_JOB_FIELDS: readonly (
  | 'jobId'
  | 'ownerId'
  | 'invocationId'
  | 'actionId'
  | 'actionName'
  | 'createdAt'
  | 'approvalId'
  | 'deadlineAt'
  | 'outputText'
  | 'machineSummary'
  | 'dataSchemaVersion'
  | 'data'
  | 'error'
  | 'payload'
  | 'request'
)[] = [
  'jobId',
  'ownerId',
  'invocationId',
  'actionId',
  'actionName',
  'createdAt',
  'approvalId',
  'deadlineAt',
  'outputText',
  'machineSummary',
  'dataSchemaVersion',
  'data',
  'error',
  'payload',
  'request',
] satisfies readonly (keyof NewJob)[];

/**
 * The result fields a {@link JobUpdate} may set besides `status`.
 *
 * @example
 * for (const field of JOB_UPDATE_FIELDS) if (update[field] !== undefined) patch[field] = update[field];
 */
export const JOB_UPDATE_FIELDS: readonly (
  | 'outputText'
  | 'machineSummary'
  | 'dataSchemaVersion'
  | 'data'
  | 'error'
  | 'payload'
)[] = [
  'outputText',
  'machineSummary',
  'dataSchemaVersion',
  'data',
  'error',
  'payload',
] satisfies readonly (keyof JobUpdate)[];

const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'cancelled', 'failed'],
  running: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/**
 * Whether the job state machine allows `from → to`.
 *
 * @example
 * canTransition('queued', 'running'); // true
 * canTransition('completed', 'failed'); // false
 */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * Whether `status` is terminal (`completed`, `failed` or `cancelled`).
 *
 * @example
 * isTerminal('cancelled'); // true
 */
export function isTerminal(status: JobStatus): boolean {
  return TRANSITIONS[status].length === 0;
}
