import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { GatewayError } from '@svc/gateway-kit/contract';
import {
  CancelListeners,
  checkOptionNames,
  isTerminal,
  JOB_UPDATE_FIELDS,
  type JobQuotaClaim,
  JobQuotaError,
  type JobStore,
  JobStoreFullError,
  type JobUpdate,
  type JobWriteResult,
  NEW_JOB_FIELDS,
  type NewJob,
  type Refuse,
  refusalFor,
  type StoredJob,
  StoreUnavailableError,
  timerMs,
} from '@svc/gateway-kit/store';
import {
  CANCEL_JOB,
  CLAIM_UNANNOUNCED,
  CREATE_JOB,
  EVICT_FINISHED,
  KEEP_FINISHED,
  RENEW_LEASES,
  SWEEP_LEASES,
  UPDATE_JOB,
} from './job-scripts.ts';
import {
  bucketShare,
  checkBuckets,
  checkPrefix,
  defaultBuckets,
  defaultPrefix,
  KeyLayout,
} from './key-layout.ts';
import {
  callbackShares,
  RedisCallbackOutbox,
  type RedisCallbackShareOptions,
} from './redis-callback-outbox.ts';
import {
  CONNECTION_OPTION_NAMES,
  connectsToCluster,
  DEFAULT_COMMAND_TIMEOUT_MS,
  type LuaScript,
  RedisConnection,
  type RedisConnectionOptions,
} from './redis-connection.ts';

/**
 * Options of {@link RedisJobStore}: the connection (see {@link RedisConnectionOptions}) plus
 * retention, capacity, leases and cancel delivery.
 *
 * @example
 * const options: RedisJobStoreOptions = {
 *   url: process.env.REDIS_URL,
 *   prefix: 'acme:gw:',
 *   retentionMs: 24 * 60 * 60 * 1000,
 *   leaseMs: 30_000,
 * };
 */
export interface RedisJobStoreOptions extends RedisConnectionOptions, RedisCallbackShareOptions {
  /**
   * Prefix of every key and channel. Instances that share jobs use the same prefix. Default
   * `svc:gw:`. It must not contain `{` or `}`: the store adds a hash tag per bucket (see
   * `buckets`).
   */
  readonly prefix?: string;
  /**
   * How many buckets the store's keys are spread over (1 … 1024). A job, its lease and the indexes
   * its scripts touch live in the bucket of its id; a principal's callback queue and finished-jobs
   * index in the bucket of the principal; on a Redis Cluster each bucket is one hash slot, so the
   * buckets spread the keys and the load over the primaries. Store-wide bounds (`maxJobs`,
   * `maxPendingCallbacks`) are split into equal per-bucket shares, so they must be at least
   * `buckets`; per-principal bounds stay exact. Part of the key layout: every instance of a
   * deployment uses the same value, and changing it moves keys (see docs/migration.md).
   * `buckets: 1` puts a store in one slot (exact store-wide bounds, no spread). Default 64 on a
   * Redis Cluster, 1 on one node (where buckets spread nothing: exact bounds, less work per job).
   */
  readonly buckets?: number;
  /** How long a finished job stays readable after it finished, in ms (EXPIRE). Default 24 h. */
  readonly retentionMs?: number;
  /**
   * Most jobs kept at once (active and finished, across all instances), split into equal shares
   * per bucket (`maxJobs / buckets` each: the total never exceeds `maxJobs`). When a job's bucket
   * is full, the earliest-finished job of the principal keeping the most in that bucket is
   * evicted; if every job of the bucket is active, `create` rejects with `JobStoreFullError`
   * (503). A positive integer, at least `buckets`. Default 100 000.
   */
  readonly maxJobs?: number;
  /**
   * Most finished jobs kept per principal (\`ownerId\`), across all instances: past it, that
   * principal's earliest-finished job is evicted, so one principal's churn never evicts another's.
   * When the store is full, the principal keeping the most finished jobs loses its earliest one.
   * Default 1 000.
   */
  readonly maxFinishedPerOwner?: number;
  /**
   * How long a queued or running job's lease lives without renewal, in ms. The instance that
   * created (and runs) the job renews it every `leaseMs / 3`; once it lapses (the instance died),
   * a sweeper fails the job with `worker_lost`. After Redis was unreachable (or at start-up), an
   * instance's sweeper waits until Redis has answered it for `leaseMs` before it fails lapsed
   * leases, so that live instances renew theirs first. Default 30 000. Like every duration of the store
   * a timer waits for, whole ms up to 2 147 483 647 (the longest a timer holds).
   */
  readonly leaseMs?: number;
  /**
   * How often this instance looks for queued or running jobs with a lapsed lease, and for finished
   * jobs nobody announced, in ms. `0` disables. Default 5000.
   */
  readonly sweepIntervalMs?: number;
  /**
   * How often watched jobs (those with `onCancel` listeners) are re-read, in ms: the fallback
   * that still aborts a runner when a pub/sub message was lost. Default 1000.
   */
  readonly cancelPollIntervalMs?: number;
  /**
   * How often this instance looks for due callbacks in the outbox ({@link RedisJobStore.callbackOutbox}),
   * in ms. A callback whose instance died is taken over within `leaseMs` plus this. Default 1000.
   */
  readonly callbackPollIntervalMs?: number;
  /**
   * Pending callbacks kept at most in the outbox, across all instances, split into equal shares
   * per bucket (a principal's callbacks are in its bucket); beyond its bucket's share a callback
   * ends as `overflow`. A positive integer, at least `buckets`. Default 100 000. Entries also
   * expire after `retentionMs`.
   */
  readonly maxPendingCallbacks?: number;
  /**
   * Durability through a primary's failover. Redis replicates asynchronously: a write the
   * primary acknowledged but had not sent to a replica when it died is lost once the replica is
   * promoted. With this option the store waits (Redis `WAIT`) after the writes a lost one would
   * break a promise for: a job's creation, its terminal write, and a callback's outbox entry
   * (queued, claimed and completed: a lost claim or completion would send a callback twice), and
   * `announced` (a lost one would have another instance report the job again), until `replicas`
   * replicas acknowledged it, for `timeoutMs` at most.
   * Cost: one round trip to the replica per such write (see docs/redis.md for measured figures).
   * When fewer replicas answer in time, the write stands (it is on the primary) and `onError`
   * receives a warning: that write had the window open; the store then skips the wait on that
   * primary for `10 × timeoutMs` (a promoted replica has no replica of its own until one
   * rejoins), so writes do not each pay the timeout. When the primary gives no answer to the
   * `WAIT` (it may have died with the write), a job's terminal write, an outbox completion or an
   * announcement is sent again until Redis answers it, a job's creation likewise before `create`
   * resolves (within `commandTimeoutMs`), and entries just claimed are not attempted (they are
   * due again wherever the claim did not survive). Default: off.
   *
   * @example
   * new RedisJobStore({ cluster, waitForReplicas: { replicas: 1, timeoutMs: 500 } });
   */
  readonly waitForReplicas?: {
    /** Replicas that must have the write (`WAIT`'s first argument), at least 1. */
    readonly replicas: number;
    /** How long to wait for them, in ms; then the write stands and `onError` gets a warning. */
    readonly timeoutMs: number;
  };
  /** Owner recorded in this instance's leases. Default `hostname:pid:random`. */
  readonly instanceId?: string;
  /** Receives what a cancel listener threw; the other listeners still run. Default `console.error`. */
  readonly onListenerError?: (error: unknown, jobId: string) => void;
}

type ScriptStatus =
  | 'quota'
  | 'created'
  | 'exists'
  | 'full'
  | 'ok'
  | 'not_found'
  | 'conflict'
  | 'invalid_transition';

const SWEEP_BATCH = 200;
/** Pages of unannounced jobs one sweep claims at most. */
const UNANNOUNCED_PAGES = 5;
const noop = (): void => {};

/** After a failed cancel subscription, how long `onCancel` and polls wait before trying again (ms). */
const SUBSCRIBE_RETRY_MS = 1_000;

/**
 * A `JobStore` in Redis, shared by every gateway instance that uses the same Redis and key
 * prefix: a job accepted on one instance can be read and cancelled on any other.
 *
 * - Every write is one Lua script: create-if-absent, compare-and-set on `version` with the
 *   gateway's state machine, and `requestCancel` that cancels and PUBLISHes in one step.
 * - `onCancel` listens on a pub/sub connection, and re-reads watched jobs every
 *   `cancelPollIntervalMs` so a lost message still aborts the runner.
 * - A job created by this store (queued or running) is leased to this instance and renewed until
 *   it ends; when an instance dies, another instance's sweeper fails its jobs with `worker_lost`
 *   (`retryable: true`) once the lease lapsed, queued ones included.
 * - Finished jobs expire `retentionMs` after they finished; at most `maxJobs` jobs are kept.
 * - With one bucket (the default on one node) it keeps its owners' `activeJobs` and `heldBytes`
 *   budgets itself (`claimsJobQuotas`): a job's create takes them and its terminal write gives
 *   them back, in the same scripts.
 * - While Redis is unreachable, calls reject at once with `StoreUnavailableError`
 *   (`retryable: true`, answered as 503 by the gateway); the store reconnects by itself.
 *
 * @example
 * import { createGateway } from '@svc/gateway-kit';
 * import { RedisJobStore, RedisRecordStore } from '@svc/gateway-kit-redis';
 *
 * const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
 * const gateway = createGateway({
 *   gateway: { id: 'acme', name: 'Acme' },
 *   actions,
 *   auth: { tokens: [process.env.GATEWAY_TOKEN!] },
 *   jobStore: new RedisJobStore({ url }),
 *   recordStore: new RedisRecordStore({ url }),
 * });
 */
export class RedisJobStore implements JobStore {
  /** Owner id written into this instance's leases. */
  readonly instanceId: string;
  /**
   * Pending callbacks in Redis, shared by every instance: `createGateway` delivers through it, so a
   * callback survives the instance that queued it (at least once, same `webhook-id`). Claims last
   * `leaseMs`; instances poll every `callbackPollIntervalMs`.
   */
  readonly callbackOutbox: RedisCallbackOutbox;
  readonly #redis: RedisConnection;
  readonly #keys: KeyLayout;
  /** '1' on one node with several buckets: terminal scripts keep the principal's finished-jobs index themselves. */
  readonly #inline: '0' | '1';
  readonly #retentionMs: number;
  readonly #maxJobs: number;
  readonly #maxFinishedPerOwner: number;
  readonly #leaseMs: number;
  readonly #sweepIntervalMs: number;
  readonly #pollIntervalMs: number;
  readonly #listeners: CancelListeners;
  readonly #workerLostListeners = new Set<(job: StoredJob) => void>();
  /** Jobs this instance created or moved to `running` and keeps leased until they end. */
  readonly #leased = new Set<string>();
  /**
   * The hash of a leased job as this instance last wrote it (at most one per leased job): a write
   * that finds the job still at that version and time gets no copy of it back (see UPDATE_JOB).
   */
  readonly #written = new Map<string, WrittenJob>();
  /** Finished jobs announced in this turn of the event loop, per unannounced set (see announced). */
  readonly #announcing = new Map<string, { ids: string[]; done: Promise<void> }>();
  /** Finished jobs waiting for their group's index, per owner bucket (see #keepGroup). */
  readonly #keeping = new Map<number, { entries: [string, string][]; done: Promise<void> }>();
  /**
   * The cancel subscription attempt in flight, or the one that succeeded. A failed attempt (Redis
   * unreachable at start-up, a cluster not ready yet) is forgotten, so a later need tries again
   * (see #subscribe).
   */
  #subscribed: Promise<void> | undefined;
  /** `performance.now()` before which a failed subscription is not tried again, but on a reconnect. */
  #subscribeRetryAt = 0;
  /** A refused subscription (not an outage) was reported: not again until one succeeds. */
  #subscribeRefusalReported = false;
  /** Delivers cancel messages: the same function on every attempt, so node-redis keeps it once. */
  readonly #onMessage = (jobId: string): void => this.#listeners.deliver(jobId);
  #renewTimer: ReturnType<typeof setInterval> | undefined;
  #pollTimer: ReturnType<typeof setInterval> | undefined;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #sweeping = false;
  /**
   * Resolves once the write to `key` reached the replicas, `false` when the primary gave no answer
   * (it may have died with the write); only with `waitForReplicas` (without it the job path does
   * not wait at all).
   */
  readonly #replicated: ((key: string) => Promise<boolean>) | undefined;

  constructor(options: RedisJobStoreOptions = {}) {
    checkOptionNames('new RedisJobStore', options, JOB_STORE_OPTION_NAMES);
    const retentionMs = options.retentionMs ?? 24 * 60 * 60 * 1000;
    const maxJobs = options.maxJobs ?? 100_000;
    const leaseMs = options.leaseMs ?? 30_000;
    const sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
    const pollIntervalMs = options.cancelPollIntervalMs ?? 1_000;
    const callbackPollIntervalMs = options.callbackPollIntervalMs ?? 1_000;
    const maxPendingCallbacks = options.maxPendingCallbacks ?? 100_000;
    // PEXPIRE and PX take whole milliseconds ≥ 1 (0 would delete the key at once).
    positiveInteger('retentionMs', retentionMs);
    // Durations timers wait for (the lease is renewed every leaseMs / 3).
    timerMs(refuse, 'leaseMs', leaseMs);
    timerMs(refuse, 'cancelPollIntervalMs', pollIntervalMs);
    timerMs(refuse, 'callbackPollIntervalMs', callbackPollIntervalMs);
    timerMs(refuse, 'sweepIntervalMs', sweepIntervalMs, true);
    // Caps on what callers make us keep are positive integers: 0 is a mistake, not "unbounded".
    positiveInteger('maxPendingCallbacks', maxPendingCallbacks);
    positiveInteger('maxJobs', maxJobs);
    const maxFinishedPerOwner = options.maxFinishedPerOwner ?? 1_000;
    positiveInteger('maxFinishedPerOwner', maxFinishedPerOwner);
    this.#maxFinishedPerOwner = maxFinishedPerOwner;
    this.#retentionMs = retentionMs;
    this.#maxJobs = maxJobs;
    this.#leaseMs = leaseMs;
    this.#sweepIntervalMs = sweepIntervalMs;
    this.#pollIntervalMs = pollIntervalMs;
    this.instanceId =
      options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#listeners = new CancelListeners(options.onListenerError);
    const buckets = options.buckets ?? defaultBuckets(connectsToCluster(options));
    checkBuckets(refuse, buckets, { maxJobs, maxPendingCallbacks });
    const prefix = options.prefix ?? defaultPrefix();
    // Before connecting: a refused store must leave no connection behind.
    checkPrefix(refuse, prefix);
    const shares = callbackShares(options);
    const waitFor = options.waitForReplicas && checkWaitForReplicas(options);
    this.#redis = new RedisConnection(options, 'new RedisJobStore');
    this.#keys = new KeyLayout(prefix, buckets);
    // With one bucket the terminal script's per-bucket index is the principal's index already.
    this.#inline = this.#redis.cluster || buckets === 1 ? '0' : '1';
    if (waitFor) {
      const { replicas, timeoutMs } = waitFor;
      this.#replicated = (key) => waitForReplicas(this.#redis, key, replicas, timeoutMs);
    }
    this.callbackOutbox = new RedisCallbackOutbox(this.#redis, {
      replicated: this.#replicated,
      keys: this.#keys,
      leaseMs,
      pollIntervalMs: callbackPollIntervalMs,
      maxEntries: maxPendingCallbacks,
      ...shares,
      ttlMs: retentionMs,
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

  /**
   * `true` with one bucket (the default on one node): a job's create takes its owner's budgets
   * and its terminal write gives them back, in the same scripts, so the gateway claims nothing for
   * jobs in its record store. With several buckets an owner's jobs spread over them (and over the
   * nodes of a cluster), so no one script could count them: the gateway claims in its record store.
   */
  get claimsJobQuotas(): boolean {
    return this.#keys.buckets === 1;
  }

  async create(
    input: NewJob,
    claim?: JobQuotaClaim,
  ): Promise<{ readonly created: boolean; readonly job: StoredJob }> {
    if (input.status !== 'queued' && input.status !== 'running') {
      throw new TypeError(`A job must be created queued or running, not ${String(input.status)}.`);
    }
    if (claim && !this.claimsJobQuotas)
      throw new TypeError('A claim needs a store that claimsJobQuotas (one bucket).');
    const fields = encodeFields(input, NEW_JOB_FIELDS);
    const bucket = this.#keys.bucketOf(input.jobId);
    const write = () =>
      this.#run(CREATE_JOB, input.jobId, [
        input.jobId,
        input.status,
        String(bucketShare(this.#maxJobs, this.#keys.buckets, bucket)),
        `${this.#keys.base(bucket)}job:`,
        this.instanceId,
        String(this.#leaseMs),
        ...(claim ? claimArgs(input.ownerId, claim) : NO_CLAIM),
        ...fields,
        // Where the job's principal's finished jobs are indexed across buckets (read by the
        // terminal scripts). With one bucket the bucket's own per-principal index is that index.
        ...(this.#keys.buckets > 1 ? ['kept', this.#keys.kept(retentionGroup(input))] : []),
        // The units the claim took, given back by the terminal write.
        ...(claim ? ['quota', String(claim.units)] : []),
      ]);
    const reply = await write();
    if (reply.status === 'quota') throw new JobQuotaError(reply.refused!);
    if (reply.status === 'full') throw new JobStoreFullError(this.#maxJobs);
    if (reply.status !== 'created') return { created: false, job: reply.job! };
    const { job, written } = afterWrite(
      undefined,
      input,
      fields,
      input.status,
      1,
      Number(reply.updatedAt),
    );
    // Lost in a failover, the job would read 404 once accepted. Sent again before the caller learns
    // of the job (its runner writes to it at once), within the store's deadline: it changes nothing
    // where the job survived (the same id) and creates it again where it did not. Past the
    // deadline (a failover slower than it) the job stands as created, as before.
    await this.#replicatedOrAgain(job.jobId, write, {
      forMs: this.#redis.commandTimeoutMs,
      awaited: true,
    });
    // Queued jobs too: the instance that created one runs it, and keeps it leased until it ends.
    this.#lease(job.jobId);
    if (written) this.#written.set(job.jobId, written);
    return { created: true, job: { ...job } };
  }

  async get(jobId: string): Promise<StoredJob | undefined> {
    const fields = await this.#redis.call((client) => client.hGetAll(this.#keys.job(jobId)));
    return Object.keys(fields).length === 0 ? undefined : decodeJob(fields);
  }

  async update(jobId: string, expectedVersion: number, update: JobUpdate): Promise<JobWriteResult> {
    const fields = encodeFields(update, JOB_UPDATE_FIELDS);
    // This instance's last write of the job, if the caller writes on top of it: the script then
    // answers only the new time (when the job is still at that version and time) instead of the
    // whole hash, which the store builds from what it wrote.
    const mine = this.#written.get(jobId);
    const known = mine?.job.version === expectedVersion ? mine : undefined;
    this.#written.delete(jobId);
    const write = (knownAt: string) =>
      this.#run(UPDATE_JOB, jobId, [
        jobId,
        String(expectedVersion),
        update.status ?? '',
        String(this.#retentionMs),
        this.instanceId,
        String(this.#leaseMs),
        String(this.#maxFinishedPerOwner),
        this.#inline,
        knownAt,
        ...fields,
      ]);
    const reply = await write(known?.hash.updatedAt ?? '');
    let written: WrittenJob | undefined;
    if (reply.status === 'ok' && reply.updatedAt !== undefined && known) {
      const status = update.status ?? known.job.status;
      const after = afterWrite(known, update, fields, status, expectedVersion + 1, reply.updatedAt);
      written = after.written;
      // The caller's copy: what it changes on it is not what this instance wrote.
      reply.job = written ? { ...after.job } : after.job;
    }
    const result = toWriteResult(reply);
    if (!result.ok) return result;
    if (isTerminal(result.job.status)) {
      await this.#replicatedOrAgain(jobId, () => write(''));
      if (this.#redis.cluster) await this.#keepFinished(result.job);
      this.#leased.delete(jobId);
      // Finishing any other way than requestCancel releases listeners without calling them.
      this.#listeners.release(jobId);
    } else {
      this.#lease(jobId);
      if (written) this.#written.set(jobId, written);
    }
    return result;
  }

  async requestCancel(jobId: string): Promise<JobWriteResult> {
    // One node: the script PUBLISHes atomically with the cancel. A cluster: the store SPUBLISHes
    // on the job's bucket channel right after (a message lost in between is caught by polling).
    const sharded = this.#redis.cluster;
    const write = () =>
      this.#run(CANCEL_JOB, jobId, [
        jobId,
        String(this.#retentionMs),
        sharded ? '' : this.#channel(),
        String(this.#leaseMs),
        String(this.#maxFinishedPerOwner),
        this.#inline,
      ]);
    const result = toWriteResult(await write());
    if (result.ok) await this.#replicatedOrAgain(jobId, write);
    if (result.ok && sharded)
      await this.#redis
        .publish(this.#cancelChannel(this.#keys.bucketOf(jobId)), jobId)
        .catch((error: unknown) => this.#redis.report(error));
    if (result.ok && this.#redis.cluster) await this.#keepFinished(result.job);
    if (result.ok) {
      this.#leased.delete(jobId);
      this.#written.delete(jobId);
      // Listeners on this instance are told before requestCancel resolves; other instances learn
      // it from the PUBLISH (or their polling fallback).
      this.#listeners.deliver(jobId);
    }
    return result;
  }

  /**
   * After a write of a job (with `waitForReplicas`): waits for the replicas, and when the primary
   * gave no answer (it may have died with the write) sends the same write again until Redis
   * answers it, for `forMs` at most, in the background unless `awaited`. Only for writes that a
   * second time change nothing where the first survived: a create (same id), a compare-and-set
   * terminal write (the version moved on), a cancel (the job ended). A terminal write lost in a
   * failover would put the job back to `running` on the promoted replica and, its lease no longer
   * renewed, end it as `worker_lost`: a second, different callback.
   */
  async #replicatedOrAgain(
    jobId: string,
    write: () => Promise<unknown>,
    { forMs = this.#leaseMs, awaited = false } = {},
  ): Promise<void> {
    if (!this.#replicated || (await this.#replicated(this.#keys.job(jobId)))) return;
    const again = this.#redis.retry(async () => {
      await write();
      return true;
    }, forMs);
    if (awaited) await again;
  }

  onCancel(jobId: string, listener: () => void): () => void {
    if (this.#closed) return noop;
    const unsubscribe = this.#listeners.add(jobId, listener);
    this.#startPolling();
    void this.#checkAfterSubscribing(jobId);
    return unsubscribe;
  }

  /**
   * Fails queued or running jobs whose lease lapsed with `worker_lost` (what the sweeper does every
   * `sweepIntervalMs`, once Redis has answered this instance for `leaseMs`; this call does it at
   * once). Returns the ids it failed.
   *
   * @example
   * const failed = await store.sweepExpiredLeases();
   */
  async sweepExpiredLeases(): Promise<string[]> {
    const swept = await Promise.all(
      this.#allBuckets().map((bucket) => this.#sweepBucket(bucket, 0)),
    );
    const failed = swept.flatMap(({ failed }) => failed);
    if (failed.length > 0 && this.#workerLostListeners.size > 0)
      await this.#reportWorkerLost(failed);
    return failed;
  }

  /**
   * Reports to `onWorkerLost` listeners the finished jobs that were not {@link announced} within
   * `leaseMs` of their terminal write (the instance that finished them died before handing their
   * callback over), claiming each for another `leaseMs` so that one instance at a time reports it.
   * The sweeper calls this every `sweepIntervalMs`. Returns the ids it reported.
   *
   * @example
   * const reported = await store.sweepUnannounced();
   */
  async sweepUnannounced(): Promise<string[]> {
    const reported = await Promise.all(
      this.#allBuckets().map((bucket) => this.#sweepUnannouncedBucket(bucket)),
    );
    return reported.flat();
  }

  /**
   * One bucket's lease sweep, page by page. With `claimMs` > 0 (the sweeper), it first takes the
   * bucket's sweep claim for `claimMs`, and sweeps nothing when another instance holds it.
   */
  async #sweepBucket(
    bucket: number,
    claimMs: number,
  ): Promise<{
    readonly claimed: boolean;
    readonly failed: string[];
    readonly unannounced: number;
  }> {
    const error: GatewayError = {
      code: 'worker_lost',
      message: 'The gateway instance running this job stopped before it finished.',
      retryable: true,
    };
    const base = this.#keys.base(bucket);
    const failed: string[] = [];
    let cursor = '0';
    let unannounced = 0;
    do {
      const [next, pairs, claimed, waiting] = (await this.#redis.script(
        SWEEP_LEASES,
        [`${base}active`, `${base}finished`, `${base}seq`, `${base}unannounced`, `${base}sweep`],
        [
          base,
          String(this.#retentionMs),
          JSON.stringify(error),
          String(this.#leaseMs),
          String(this.#maxFinishedPerOwner),
          this.instanceId,
          String(claimMs),
          cursor,
          String(SWEEP_BATCH),
        ],
      )) as [string, string[], number, number];
      if (claimed === 0) return { claimed: false, failed, unannounced: 0 };
      unannounced = waiting;
      cursor = String(next);
      if (pairs.length === 0) continue;
      if (this.#replicated) await this.#replicated(`${base}active`);
      const kept: Promise<void>[] = [];
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        failed.push(pairs[i]!);
        kept.push(this.#keepGroup(`${base}job:${pairs[i]}`, pairs[i + 1]!));
      }
      await Promise.all(kept);
    } while (cursor !== '0');
    return { claimed: true, failed, unannounced };
  }

  async #sweepUnannouncedBucket(bucket: number): Promise<string[]> {
    // Without a listener (no gateway on this instance) nothing is claimed: another instance may
    // report it; entries of jobs that expired are still dropped, so the set stays bounded.
    const claim = this.#workerLostListeners.size > 0;
    const base = this.#keys.base(bucket);
    const reported: string[] = [];
    // Bounded work per sweep; what is left is due at the next one.
    for (let page = 0; page < UNANNOUNCED_PAGES; page++) {
      const [ids, seen] = (await this.#redis.script(
        CLAIM_UNANNOUNCED,
        [`${base}unannounced`],
        [`${base}job:`, String(this.#leaseMs), String(SWEEP_BATCH), claim ? '1' : '0'],
      )) as [string[], number];
      reported.push(...ids);
      if (ids.length > 0) await this.#reportWorkerLost(ids);
      if (seen < SWEEP_BATCH || !claim) break;
    }
    return reported;
  }

  #allBuckets(): number[] {
    return Array.from({ length: this.#keys.buckets }, (_, bucket) => bucket);
  }

  /**
   * After a job's terminal write: the job joins its retention group's index (exact per principal,
   * across buckets), and the group's earliest-finished jobs past `maxFinishedPerOwner` are
   * deleted. Never throws: the terminal write stands; a job this step missed (Redis unreachable,
   * the instance died) still expires after `retentionMs`.
   */
  async #keepFinished(job: StoredJob): Promise<void> {
    await this.#keepGroup(this.#keys.job(job.jobId), retentionGroup(job));
  }

  /**
   * Batches the finished jobs of one owner bucket that end within one turn of the event loop into
   * one script (and their evictions into one script per job bucket); resolves once its batch is
   * done. Never rejects.
   */
  #keepGroup(jobKey: string, group: string): Promise<void> {
    // One bucket: the terminal script's per-bucket index is exact per principal already.
    if (this.#keys.buckets === 1) return Promise.resolve();
    const bucket = this.#keys.bucketOf(group);
    let batch = this.#keeping.get(bucket);
    if (!batch) {
      const entries: [string, string][] = [];
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.#keeping.delete(bucket);
        return this.#keepBatch(entries);
      });
      batch = { entries, done };
      this.#keeping.set(bucket, batch);
    }
    batch.entries.push([jobKey, group]);
    return batch.done;
  }

  async #keepBatch(entries: readonly [string, string][]): Promise<void> {
    try {
      const groups = [...new Set(entries.map(([, group]) => group))];
      const index = new Map(groups.map((group, i) => [group, i + 1]));
      const evicted = (await this.#redis.script(
        KEEP_FINISHED,
        groups.map((group) => this.#keys.kept(group)),
        [
          String(this.#maxFinishedPerOwner),
          String(this.#retentionMs),
          ...groups,
          ...entries.flatMap(([jobKey, group]) => [String(index.get(group)), jobKey]),
        ],
      )) as string[];
      if (evicted.length === 0) return;
      // Evicted members are job keys: `<prefix>{tag}:job:<id>`, grouped by bucket base.
      const byBase = new Map<string, string[]>();
      for (let i = 0; i + 1 < evicted.length; i += 2) {
        const member = evicted[i]!;
        const base = member.slice(0, member.indexOf('}', member.indexOf('{')) + 2);
        const pairs = byBase.get(base) ?? [];
        pairs.push(member, evicted[i + 1]!);
        byBase.set(base, pairs);
      }
      await Promise.all(
        [...byBase].map(([base, pairs]) =>
          this.#redis.script(EVICT_FINISHED, [`${base}finished`], pairs),
        ),
      );
    } catch (error) {
      // The terminal writes stand; a job left out expires after retentionMs.
      this.#redis.report(error);
    }
  }

  /**
   * The gateway handed this finished job's end over (budget released, callback queued): no other
   * instance needs to report it.
   *
   * @example
   * await store.announced(job.jobId);
   */
  announced(jobId: string): Promise<void> {
    // The jobs of one bucket announced within one turn of the event loop leave in one ZREM.
    const unannounced = `${this.#keys.baseOf(jobId)}unannounced`;
    let batch = this.#announcing.get(unannounced);
    if (!batch) {
      const ids: string[] = [];
      // Lost (Redis unreachable, or a failover after the write), the entries would have another
      // instance report the jobs once their lease-long grace passes, and send their callbacks a
      // second time: then the ZREM is sent again in the background until it lands, within that
      // grace. The job and its callback's outbox entry are on different primaries.
      const remove = async (): Promise<boolean> => {
        await this.#redis.send(unannounced, ['ZREM', unannounced, ...ids]);
        return (await this.#replicated?.(unannounced)) !== false;
      };
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.#announcing.delete(unannounced);
        let removed = false;
        try {
          removed = await remove();
        } finally {
          if (!removed) void this.#redis.retry(remove, this.#leaseMs);
        }
      });
      batch = { ids, done };
      this.#announcing.set(unannounced, batch);
    }
    batch.ids.push(jobId);
    return batch.done;
  }

  /**
   * Calls `listener` with every job this instance's sweeps fail as `worker_lost` (the gateway sends
   * their job-result callbacks). Returns an unsubscribe function.
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

  async #reportWorkerLost(jobIds: readonly string[]): Promise<void> {
    for (const jobId of jobIds) {
      const job = await this.get(jobId);
      if (!job || !isTerminal(job.status)) continue;
      for (const listener of this.#workerLostListeners) {
        try {
          listener(job);
        } catch (error) {
          this.#redis.report(error);
        }
      }
    }
  }

  /**
   * Fail-fast start-up: resolves once Redis answers; rejects with a `StoreUnavailableError` naming
   * the URL (never its password) when it cannot be reached within `connectTimeoutMs`. Not calling
   * it starts degraded: calls answer `StoreUnavailableError` (503) until Redis is reachable, and
   * the store keeps reconnecting by itself.
   *
   * @example
   * const store = new RedisJobStore({ url: process.env.REDIS_URL });
   * await store.ready(); // throws: Cannot reach Redis at redis://:***@cache:6379 within 2000 ms.
   */
  ready(): Promise<void> {
    return this.#redis.ready();
  }

  /**
   * Stops the sweeper, lease renewals and cancel polling, then closes every connection the store
   * opened (see `RedisConnectionOptions.client` for one you gave), whenever it is called: also
   * right after the constructor, while they are still being opened. Resolves once they are
   * released (within about `commandTimeoutMs`); a second call returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    clearInterval(this.#renewTimer);
    clearInterval(this.#pollTimer);
    this.#listeners.clear();
    this.#workerLostListeners.clear();
    this.#leased.clear();
    this.#written.clear();
    // Announcements and retention batches waiting for the end of this turn still go out: the
    // gateway made them before closing, and an announcement lost here would make another instance
    // report the job again.
    await Promise.allSettled(
      [...this.#announcing.values(), ...this.#keeping.values()].map((batch) => batch.done),
    );
    await this.#redis.close();
  }

  async #run(
    script: LuaScript,
    jobId: string,
    args: string[],
  ): Promise<{
    status: ScriptStatus;
    job?: StoredJob;
    updatedAt?: number;
    refused?: 'activeJobs' | 'heldBytes';
  }> {
    const base = this.#keys.baseOf(jobId);
    const keys = [
      `${base}job:${jobId}`,
      `${base}active`,
      `${base}finished`,
      `${base}seq`,
      `${base}lease:${jobId}`,
      `${base}unannounced`,
    ];
    const reply = (await this.#redis.script(script, keys, args)) as [
      ScriptStatus,
      (string[] | number | 'activeJobs' | 'heldBytes')?,
    ];
    const [status, flat] = reply;
    if (typeof flat === 'number') return { status, updatedAt: flat };
    if (typeof flat === 'string') return { status, refused: flat };
    return flat ? { status, job: decodeJob(pairsToObject(flat)) } : { status };
  }

  /** One node: one channel, PUBLISHed inside the cancel script. */
  #channel(): string {
    return `${this.#keys.prefix}cancel`;
  }

  /** On a cluster, cancels go out on one sharded channel per bucket (jobs of the bucket). */
  #cancelChannel(bucket: number): string {
    return `${this.#keys.base(bucket)}cancel`;
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
    const byBucket = new Map<number, string[]>();
    for (const jobId of this.#leased) {
      const bucket = this.#keys.bucketOf(jobId);
      const ids = byBucket.get(bucket);
      if (ids) ids.push(jobId);
      else byBucket.set(bucket, [jobId]);
    }
    await Promise.all(
      [...byBucket].map(async ([bucket, ids]) => {
        const base = this.#keys.base(bucket);
        try {
          const done = (await this.#redis.script(
            RENEW_LEASES,
            [`${base}active`],
            [base, this.instanceId, String(this.#leaseMs), ...ids],
          )) as string[];
          for (const jobId of done) {
            this.#leased.delete(jobId);
            this.#written.delete(jobId);
          }
        } catch (error) {
          // Retried on the next tick; the lease is three renewals long.
          if (!this.#closed) this.#redis.report(error);
        }
      }),
    );
  }

  async #sweepQuietly(): Promise<void> {
    // One sweep at a time: a slow Redis must not pile sweeps (a script per bucket each) up.
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      // After an outage longer than leaseMs every live instance's leases have lapsed: sweeping as
      // soon as Redis answers would fail live jobs before their instances renew them. So the
      // sweeper waits until Redis has answered this instance for a whole lease (since it was last
      // seen failing, or since start-up): every live instance has then had a full lease to renew.
      if (this.#redis.answeringForMs() < this.#leaseMs) await this.#probe();
      else await this.#sweepBuckets();
    } finally {
      this.#sweeping = false;
    }
  }

  /**
   * While the sweeper waits (see #sweepQuietly): one small command per bucket, so the connection
   * learns whether Redis answers (on a cluster, every primary holding a bucket) without any other
   * traffic.
   */
  async #probe(): Promise<void> {
    const buckets = this.#redis.cluster ? this.#allBuckets() : [0];
    try {
      await Promise.all(
        buckets.map((bucket) => {
          const claim = `${this.#keys.base(bucket)}sweep`;
          return this.#redis.send(claim, ['EXISTS', claim]);
        }),
      );
    } catch (error) {
      if (!this.#closed) this.#redis.report(error);
    }
  }

  async #sweepBuckets(): Promise<void> {
    // Each bucket is swept by the instance that takes its claim (for half an interval), so with
    // several instances every bucket is swept about once per interval, not once per instance.
    const claimMs = Math.max(1, Math.floor(this.#sweepIntervalMs / 2));
    await Promise.all(
      this.#allBuckets().map(async (bucket) => {
        try {
          const { claimed, failed, unannounced } = await this.#sweepBucket(bucket, claimMs);
          if (failed.length > 0 && this.#workerLostListeners.size > 0)
            await this.#reportWorkerLost(failed);
          if (claimed && unannounced > 0) await this.#sweepUnannouncedBucket(bucket);
        } catch (error) {
          if (!this.#closed) this.#redis.report(error);
        }
      }),
    );
  }

  /**
   * Subscribes to the cancel channels unless an attempt is in flight or succeeded; resolves once
   * the attempt ended (never rejects; the subscription may then be missing, and polling covers).
   * After a failed attempt the next need tries again: the next `onCancel` or poll, at most once per
   * SUBSCRIBE_RETRY_MS, and the subscriber's (re)connect (`now`) at once.
   */
  #subscribe(now = false): Promise<void> {
    if (this.#subscribed) return this.#subscribed;
    if (this.#closed || (!now && performance.now() < this.#subscribeRetryAt))
      return Promise.resolve();
    const channels = this.#redis.cluster
      ? this.#allBuckets().map((bucket) => this.#cancelChannel(bucket))
      : [this.#channel()];
    const attempt: Promise<void> = this.#redis
      .subscribe(channels, this.#onMessage, () => this.#subscriberReady())
      .then(
        () => {
          this.#subscribeRefusalReported = false;
        },
        (error: unknown) => {
          if (this.#subscribed === attempt) this.#subscribed = undefined;
          this.#subscribeRetryAt = performance.now() + SUBSCRIBE_RETRY_MS;
          // An outage is reported by the connection (its subscriber connection lost); a refusal
          // (a bug, an ACL) here, once.
          if (this.#closed || error instanceof StoreUnavailableError) return;
          if (this.#subscribeRefusalReported) return;
          this.#subscribeRefusalReported = true;
          this.#redis.report(error);
        },
      );
    this.#subscribed = attempt;
    return attempt;
  }

  /**
   * After the subscriber (re)connected: subscribes if no attempt succeeded yet (one failed while
   * Redis was unreachable), then re-reads every watched job (messages sent meanwhile are lost).
   */
  #subscriberReady(): void {
    if (this.#closed) return;
    void this.#subscribe(true).then(() => this.#poll());
  }

  async #checkAfterSubscribing(jobId: string): Promise<void> {
    // Subscribe first, then read: a cancel is either in the state read or in a later message.
    await this.#subscribe();
    await this.#check([jobId]);
  }

  /** Re-reads watched jobs: delivers cancellations, drops listeners that can never fire. */
  async #check(jobIds: string[]): Promise<void> {
    if (this.#closed || jobIds.length === 0) return;
    let states: (string | null)[][];
    try {
      states = await this.#redis.call((client) =>
        Promise.all(
          jobIds.map((jobId) => client.hmGet(this.#keys.job(jobId), ['status', 'cancelRequested'])),
        ),
      );
    } catch {
      return; // Redis unreachable: the next poll tries again.
    }
    for (const [index, jobId] of jobIds.entries()) {
      const [status, cancelRequested] = states[index] ?? [];
      if (cancelRequested === '1') this.#listeners.deliver(jobId);
      // Unknown, expired or finished without a cancel: such a listener would only leak.
      else if (!status || isTerminal(status as StoredJob['status'])) this.#listeners.release(jobId);
    }
  }

  async #poll(): Promise<void> {
    await this.#check(this.#listeners.jobIds());
  }

  #startPolling(): void {
    if (this.#pollTimer !== undefined) return;
    this.#pollTimer = setInterval(() => {
      if (this.#listeners.size > 0) {
        // A subscription that failed is tried again here too: a cluster subscriber whose connect
        // found no seed node has no reconnect to wait for.
        void this.#subscribe();
        void this.#poll();
        return;
      }
      clearInterval(this.#pollTimer);
      this.#pollTimer = undefined;
    }, this.#pollIntervalMs);
    this.#pollTimer.unref();
  }
}

/**
 * WAITs for `replicas` replicas of the primary holding `key`. Never throws: the write it follows
 * succeeded, and failing the call now would turn that success into a reported failure (a caller
 * would retry what is done). Falling short, or not getting an answer, is reported. Resolves
 * `false` when the primary gave no answer (it may have died with the write), so that the callers
 * of idempotent writes send them again; `true` otherwise (the write is on a primary that answered).
 */
async function waitForReplicas(
  redis: RedisConnection,
  key: string,
  replicas: number,
  timeoutMs: number,
): Promise<boolean> {
  try {
    const acknowledged = await redis.waitForReplicas(key, replicas, timeoutMs);
    if (acknowledged !== undefined && acknowledged < replicas)
      redis.report(
        new Error(
          `Only ${acknowledged} of ${replicas} Redis replicas acknowledged a write within ${timeoutMs} ms: a failover now could lose it.`,
        ),
      );
    return true;
  } catch (error) {
    redis.report(error);
    return false;
  }
}

const refuse: Refuse = refusalFor('new RedisJobStore');

/** The names of {@link RedisJobStoreOptions}: any other is refused (a misspelt one would be ignored). */
const JOB_STORE_OPTION_NAMES: readonly string[] = [
  ...CONNECTION_OPTION_NAMES,
  ...Object.keys({
    maxPendingCallbacksPerPrincipal: true,
    maxPendingCallbackBytesPerPrincipal: true,
    prefix: true,
    buckets: true,
    retentionMs: true,
    maxJobs: true,
    maxFinishedPerOwner: true,
    leaseMs: true,
    sweepIntervalMs: true,
    cancelPollIntervalMs: true,
    callbackPollIntervalMs: true,
    maxPendingCallbacks: true,
    waitForReplicas: true,
    instanceId: true,
    onListenerError: true,
  } satisfies Record<Exclude<keyof RedisJobStoreOptions, keyof RedisConnectionOptions>, true>),
];

/**
 * `waitForReplicas` as given, checked: `WAIT` runs under the store's own deadline, so a timeout
 * that reaches `commandTimeoutMs` would turn every write a missing replica holds up into a dropped
 * connection instead of one warning.
 */
function checkWaitForReplicas(
  options: RedisJobStoreOptions,
): NonNullable<RedisJobStoreOptions['waitForReplicas']> {
  const given = options.waitForReplicas!;
  const { replicas, timeoutMs } = given;
  positiveInteger('waitForReplicas.replicas', replicas);
  positiveInteger('waitForReplicas.timeoutMs', timeoutMs);
  const deadline = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  if (timeoutMs >= deadline)
    refuse(
      'waitForReplicas.timeoutMs',
      timeoutMs,
      `expected less than commandTimeoutMs (${deadline} ms), the deadline WAIT runs under.`,
    );
  return given;
}

function positiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1)
    refuse(name, value, `expected a positive integer${name.endsWith('Ms') ? ' (ms)' : ''}.`);
}

/** `[field, JSON, …]` for the listed fields that are set; rejects values JSON cannot hold. */
function encodeFields<T extends object, K extends keyof T & string>(
  source: T,
  keys: readonly K[],
): string[] {
  const fields: string[] = [];
  for (const key of keys) {
    const value = source[key];
    if (value === undefined) continue;
    // The caller's request is already text: kept as is (JSON-quoting it would only grow it).
    if (key === 'request' && typeof value === 'string') {
      fields.push(key, value);
      continue;
    }
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`Job field ${key} is not JSON-serialisable.`);
    fields.push(key, json);
  }
  return fields;
}

/** CREATE_JOB's claim arguments without a claim. */
const NO_CLAIM = ['', '', '', '', ''] as const;

/** CREATE_JOB's claim arguments: the owner (as stored: JSON), then the claim's bounds. */
function claimArgs(ownerId: string, claim: JobQuotaClaim): string[] {
  for (const key of ['maxActive', 'units', 'maxUnits', 'ttlMs'] as const)
    if (!Number.isSafeInteger(claim[key]) || claim[key] < 1)
      throw new TypeError(`claim.${key} must be a positive integer, not ${String(claim[key])}.`);
  return [
    JSON.stringify(ownerId),
    String(claim.maxActive),
    String(claim.units),
    String(claim.maxUnits),
    String(claim.ttlMs),
  ];
}

/** Whose share a finished job counts in: its owner's (as stored: JSON), apart for approved jobs. */
function retentionGroup(job: {
  readonly ownerId?: unknown;
  readonly approvalId?: unknown;
}): string {
  const owner = job.ownerId === undefined ? '' : JSON.stringify(job.ownerId);
  return job.approvalId === undefined ? owner : `${owner}:approved`;
}

/** A job's hash as this instance wrote it (fields as Redis holds them), and the job it holds. */
interface WrittenJob {
  readonly hash: Readonly<Record<string, string>>;
  readonly job: StoredJob;
}

/**
 * The job after writing `fields` (`[field, value as stored, …]` of `source`) on top of `prior`, as
 * a read would give it: objects decoded afresh from their JSON, so no two answers share one; and,
 * unless it finished, its hash (a finished job is not written again by this instance). A finished
 * job keeps none of the caller's request (see `finish` in job-scripts.ts). Objects are built
 * field by field, never `delete`d from (which would make V8 keep them as slow dictionaries).
 */
function afterWrite(
  prior: WrittenJob | undefined,
  source: object,
  fields: readonly string[],
  status: StoredJob['status'],
  version: number,
  updatedAtMs: number,
): { readonly job: StoredJob; readonly written: WrittenJob | undefined } {
  const finished = isTerminal(status);
  const job: Record<string, unknown> = {};
  const hash: Record<string, string> | undefined = finished ? undefined : {};
  if (prior) {
    const before = prior.job as unknown as Record<string, unknown>;
    for (const key in before)
      if (!finished || key !== 'request') job[key] = fresh(before[key], prior.hash[key]);
    if (hash) for (const key in prior.hash) hash[key] = prior.hash[key]!;
  } else {
    job.cancelRequested = false;
    if (hash) hash.cancelRequested = '0';
  }
  const values = source as Record<string, unknown>;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const key = fields[i]!;
    if (hash) hash[key] = fields[i + 1]!;
    // The store's own fields (the principal's finished-jobs index, the units its claim took).
    if (key !== 'kept' && key !== 'quota') job[key] = fresh(values[key], fields[i + 1]);
  }
  job.status = status;
  job.version = version;
  job.updatedAt = new Date(updatedAtMs).toISOString();
  const stored = job as unknown as StoredJob;
  if (!hash) return { job: stored, written: undefined };
  hash.status = status;
  hash.version = String(version);
  hash.updatedAt = String(updatedAtMs);
  return { job: stored, written: { hash, job: stored } };
}

/** A primitive as it is; an object decoded from the JSON it was stored as. */
function fresh(value: unknown, json: string | undefined): unknown {
  return typeof value === 'object' && value !== null && json !== undefined
    ? JSON.parse(json)
    : value;
}

function pairsToObject(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fields;
}

function decodeJob(fields: Record<string, string>): StoredJob {
  const job: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    // The store's own fields (the principal's finished-jobs index, the units its claim took).
    if (key === 'kept' || key === 'quota') continue;
    if (key === 'status' || key === 'request') job[key] = value;
    else if (key === 'version') job[key] = Number(value);
    else if (key === 'cancelRequested') job[key] = value === '1';
    else if (key === 'updatedAt') job[key] = new Date(Number(value)).toISOString();
    else job[key] = JSON.parse(value);
  }
  return job as unknown as StoredJob;
}

function toWriteResult(reply: { status: ScriptStatus; job?: StoredJob }): JobWriteResult {
  if (reply.status === 'ok') return { ok: true, job: reply.job! };
  const reason = reply.status as 'not_found' | 'conflict' | 'invalid_transition';
  return reply.job ? { ok: false, reason, job: reply.job } : { ok: false, reason };
}
