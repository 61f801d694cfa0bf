import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { GatewayError } from '@svc/gateway-kit/contract';
import {
  isTerminal,
  JOB_UPDATE_FIELDS,
  type JobStore,
  JobStoreFullError,
  type JobUpdate,
  type JobWriteResult,
  NEW_JOB_FIELDS,
  type NewJob,
  type Refuse,
  refusalFor,
  type StoredJob,
} from '@svc/gateway-kit/store';
import {
  CANCEL_JOB,
  CLAIM_UNANNOUNCED,
  CREATE_JOB,
  RENEW_LEASES,
  SWEEP_LEASES,
  UPDATE_JOB,
} from './job-scripts.ts';
import { BUCKET_TAGS, bucketOf, checkClusterPrefix, defaultPrefix } from './key-layout.ts';
import {
  callbackShares,
  RedisCallbackOutbox,
  type RedisCallbackShareOptions,
} from './redis-callback-outbox.ts';
import {
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
   * `svc:gw:`; on a Redis Cluster `{svc:gw}:`, and a prefix given there needs a hash tag (`{…}`).
   */
  readonly prefix?: string;
  /** How long a finished job stays readable after it finished, in ms (EXPIRE). Default 24 h. */
  readonly retentionMs?: number;
  /**
   * Most jobs kept at once (active and finished, across all instances). When full, the
   * earliest-finished job is evicted; if every job is active, `create` rejects with
   * `JobStoreFullError` (503). A positive integer. Default 100 000.
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
   * a sweeper fails the job with `worker_lost`. Default 30 000.
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
   * Pending callbacks kept at most in the outbox, across all instances; beyond it a callback ends
   * as `overflow`. A positive integer. Default 100 000. Entries also expire after `retentionMs`.
   */
  readonly maxPendingCallbacks?: number;
  /**
   * Durability through a primary's failover. Redis replicates asynchronously: a write the
   * primary acknowledged but had not sent to a replica when it died is lost once the replica is
   * promoted. With this option the store waits (Redis `WAIT`) after the writes a lost one would
   * break a promise for: a job's creation, its terminal write, and a callback's outbox entry
   * (queued and completed), until `replicas` replicas acknowledged it, for `timeoutMs` at most.
   * Cost: one round trip to the replica per such write (see docs/redis.md for measured figures).
   * When fewer replicas answer in time, the write stands (it is on the primary) and `onError`
   * receives a warning: that write had the window open; the store then skips the wait on that
   * primary for `10 × timeoutMs` (a promoted replica has no replica of its own until one
   * rejoins), so writes do not each pay the timeout. Default: off.
   *
   * @example
   * new RedisJobStore({ cluster, waitForReplicas: { replicas: 1, timeoutMs: 500 } });
   */
  readonly waitForReplicas?: { readonly replicas: number; readonly timeoutMs: number };
  /** Owner recorded in this instance's leases. Default `hostname:pid:random`. */
  readonly instanceId?: string;
  /** Receives what a cancel listener threw; the other listeners still run. Default `console.error`. */
  readonly onListenerError?: (error: unknown, jobId: string) => void;
}

interface CancelSubscription {
  readonly listener: () => void;
  active: boolean;
}

type ScriptStatus =
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

/**
 * A {@link JobStore} in Redis, shared by every gateway instance that uses the same Redis and key
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
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #maxJobs: number;
  readonly #maxFinishedPerOwner: number;
  readonly #leaseMs: number;
  readonly #sweepIntervalMs: number;
  readonly #pollIntervalMs: number;
  readonly #onListenerError: (error: unknown, jobId: string) => void;
  readonly #listeners = new Map<string, Set<CancelSubscription>>();
  readonly #workerLostListeners = new Set<(job: StoredJob) => void>();
  /** Jobs this instance created or moved to `running` and keeps leased until they end. */
  readonly #leased = new Set<string>();
  #subscribed: Promise<void> | undefined;
  #renewTimer: ReturnType<typeof setInterval> | undefined;
  #pollTimer: ReturnType<typeof setInterval> | undefined;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  /** Resolves once the write to `key` reached the replicas (`waitForReplicas`); a no-op without it. */
  readonly #replicated: (key: string) => Promise<void> = async () => {};

  constructor(options: RedisJobStoreOptions = {}) {
    const retentionMs = options.retentionMs ?? 24 * 60 * 60 * 1000;
    const maxJobs = options.maxJobs ?? 100_000;
    const leaseMs = options.leaseMs ?? 30_000;
    const sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
    const pollIntervalMs = options.cancelPollIntervalMs ?? 1_000;
    const callbackPollIntervalMs = options.callbackPollIntervalMs ?? 1_000;
    const maxPendingCallbacks = options.maxPendingCallbacks ?? 100_000;
    // PEXPIRE and PX take whole milliseconds ≥ 1 (0 would delete the key at once).
    positiveInteger('retentionMs', retentionMs);
    positiveInteger('leaseMs', leaseMs);
    positiveInteger('cancelPollIntervalMs', pollIntervalMs);
    positiveInteger('callbackPollIntervalMs', callbackPollIntervalMs);
    // Caps on what callers make us keep are positive integers: 0 is a mistake, not "unbounded".
    positiveInteger('maxPendingCallbacks', maxPendingCallbacks);
    positiveInteger('maxJobs', maxJobs);
    const maxFinishedPerOwner = options.maxFinishedPerOwner ?? 1_000;
    positiveInteger('maxFinishedPerOwner', maxFinishedPerOwner);
    this.#maxFinishedPerOwner = maxFinishedPerOwner;
    if (!Number.isFinite(sweepIntervalMs) || sweepIntervalMs < 0)
      refuse('sweepIntervalMs', sweepIntervalMs, 'expected a finite number ≥ 0.');
    this.#retentionMs = retentionMs;
    this.#maxJobs = maxJobs;
    this.#leaseMs = leaseMs;
    this.#sweepIntervalMs = sweepIntervalMs;
    this.#pollIntervalMs = pollIntervalMs;
    this.instanceId =
      options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#onListenerError =
      options.onListenerError ??
      ((error, jobId) => console.error(`A cancel listener of job ${jobId} threw:`, error));
    this.#redis = new RedisConnection(options, 'new RedisJobStore');
    this.#prefix = options.prefix ?? defaultPrefix(this.#redis.cluster);
    if (this.#redis.cluster) checkClusterPrefix(this.#prefix);
    if (options.waitForReplicas) {
      const { replicas, timeoutMs } = options.waitForReplicas;
      positiveInteger('waitForReplicas.replicas', replicas);
      positiveInteger('waitForReplicas.timeoutMs', timeoutMs);
      this.#replicated = (key) => waitForReplicas(this.#redis, key, replicas, timeoutMs);
    }
    this.callbackOutbox = new RedisCallbackOutbox(this.#redis, {
      replicated: this.#replicated,
      prefix: this.#prefix,
      leaseMs,
      pollIntervalMs: callbackPollIntervalMs,
      maxEntries: maxPendingCallbacks,
      ...callbackShares(options),
      ttlMs: retentionMs,
    });
    if (sweepIntervalMs > 0) {
      this.#sweepTimer = setInterval(() => void this.#sweepQuietly(), sweepIntervalMs);
      this.#sweepTimer.unref();
    }
  }

  /** Cancel listeners registered on this instance (not yet called or unsubscribed). */
  get listenerCount(): number {
    let count = 0;
    for (const subscriptions of this.#listeners.values()) count += subscriptions.size;
    return count;
  }

  /** Jobs this instance currently holds a lease for. */
  get leasedJobs(): readonly string[] {
    return [...this.#leased];
  }

  async create(input: NewJob): Promise<{ readonly created: boolean; readonly job: StoredJob }> {
    if (input.status !== 'queued' && input.status !== 'running') {
      throw new TypeError(`A job must be created queued or running, not ${String(input.status)}.`);
    }
    const fields = encodeFields(input, NEW_JOB_FIELDS);
    const reply = await this.#run(CREATE_JOB, input.jobId, [
      input.jobId,
      input.status,
      String(this.#maxJobs),
      `${this.#prefix}job:`,
      this.instanceId,
      String(this.#leaseMs),
      ...fields,
    ]);
    if (reply.status === 'full') throw new JobStoreFullError(this.#maxJobs);
    const job = reply.job!;
    if (reply.status === 'created') await this.#replicated(this.#jobKey(job.jobId));
    // Queued jobs too: the instance that created one runs it, and keeps it leased until it ends.
    if (reply.status === 'created') this.#lease(job.jobId);
    return { created: reply.status === 'created', job };
  }

  async get(jobId: string): Promise<StoredJob | undefined> {
    const fields = await this.#redis.call((client) => client.hGetAll(this.#jobKey(jobId)));
    return Object.keys(fields).length === 0 ? undefined : decodeJob(fields);
  }

  async update(jobId: string, expectedVersion: number, update: JobUpdate): Promise<JobWriteResult> {
    const fields = encodeFields(update, JOB_UPDATE_FIELDS);
    const reply = await this.#run(UPDATE_JOB, jobId, [
      jobId,
      String(expectedVersion),
      update.status ?? '',
      String(this.#retentionMs),
      this.instanceId,
      String(this.#leaseMs),
      String(this.#maxFinishedPerOwner),
      ...fields,
    ]);
    const result = toWriteResult(reply);
    if (result.ok && isTerminal(result.job.status)) await this.#replicated(this.#jobKey(jobId));
    if (result.ok) {
      if (!isTerminal(result.job.status)) this.#lease(jobId);
      else this.#leased.delete(jobId);
      // Finishing any other way than requestCancel releases listeners without calling them.
      if (isTerminal(result.job.status)) this.#takeListeners(jobId);
    }
    return result;
  }

  async requestCancel(jobId: string): Promise<JobWriteResult> {
    // One node: the script PUBLISHes atomically with the cancel. A cluster: the store SPUBLISHes
    // on the job's bucket channel right after (a message lost in between is caught by polling).
    const sharded = this.#redis.cluster;
    const reply = await this.#run(CANCEL_JOB, jobId, [
      jobId,
      String(this.#retentionMs),
      sharded ? '' : this.#channel(),
      String(this.#leaseMs),
      String(this.#maxFinishedPerOwner),
    ]);
    const result = toWriteResult(reply);
    if (result.ok) await this.#replicated(this.#jobKey(jobId));
    if (result.ok && sharded)
      await this.#redis
        .publish(this.#cancelChannel(bucketOf(jobId)), jobId)
        .catch((error: unknown) => this.#redis.report(error));
    if (result.ok) {
      this.#leased.delete(jobId);
      // Listeners on this instance are told before requestCancel resolves; other instances learn
      // it from the PUBLISH (or their polling fallback).
      this.#deliverAll(jobId);
    }
    return result;
  }

  onCancel(jobId: string, listener: () => void): () => void {
    if (this.#closed) return noop;
    const subscription: CancelSubscription = { listener, active: true };
    let subscriptions = this.#listeners.get(jobId);
    if (!subscriptions) {
      subscriptions = new Set();
      this.#listeners.set(jobId, subscriptions);
    }
    subscriptions.add(subscription);
    this.#startPolling();
    void this.#checkAfterSubscribing(jobId);
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      const current = this.#listeners.get(jobId);
      if (current?.delete(subscription) && current.size === 0) this.#listeners.delete(jobId);
    };
  }

  /**
   * Fails queued or running jobs whose lease lapsed with `worker_lost` (the sweeper calls this every
   * `sweepIntervalMs`). Returns the ids it failed.
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
    const failed: string[] = [];
    let cursor = '0';
    do {
      const page = await this.#redis.call((client) =>
        client.sScan(this.#key('running'), cursor, { COUNT: SWEEP_BATCH }),
      );
      cursor = String(page.cursor);
      if (page.members.length === 0) continue;
      const ids = (await this.#redis.script(
        SWEEP_LEASES,
        [
          this.#key('active'),
          this.#key('running'),
          this.#key('finished'),
          this.#key('seq'),
          this.#key('unannounced'),
        ],
        [
          this.#prefix,
          String(this.#retentionMs),
          JSON.stringify(error),
          String(this.#leaseMs),
          String(this.#maxFinishedPerOwner),
          ...page.members,
        ],
      )) as string[];
      if (ids.length > 0) await this.#replicated(this.#key('active'));
      failed.push(...ids);
    } while (cursor !== '0');
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
    // Without a listener (no gateway on this instance) nothing is claimed: another instance may
    // report it; entries of jobs that expired are still dropped, so the set stays bounded.
    const claim = this.#workerLostListeners.size > 0;
    const reported: string[] = [];
    // Bounded work per sweep; what is left is due at the next one.
    for (let page = 0; page < UNANNOUNCED_PAGES; page++) {
      const [ids, seen] = (await this.#redis.script(
        CLAIM_UNANNOUNCED,
        [this.#key('unannounced')],
        [`${this.#prefix}job:`, String(this.#leaseMs), String(SWEEP_BATCH), claim ? '1' : '0'],
      )) as [string[], number];
      reported.push(...ids);
      if (ids.length > 0) await this.#reportWorkerLost(ids);
      if (seen < SWEEP_BATCH || !claim) break;
    }
    return reported;
  }

  /**
   * The gateway handed this finished job's end over (budget released, callback queued): no other
   * instance needs to report it.
   *
   * @example
   * await store.announced(job.jobId);
   */
  async announced(jobId: string): Promise<void> {
    await this.#redis.call((client) => client.zRem(this.#key('unannounced'), jobId));
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

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    clearInterval(this.#renewTimer);
    clearInterval(this.#pollTimer);
    this.#listeners.clear();
    this.#workerLostListeners.clear();
    this.#leased.clear();
    await this.#redis.close();
  }

  async #run(
    script: LuaScript,
    jobId: string,
    args: string[],
  ): Promise<{ status: ScriptStatus; job?: StoredJob }> {
    const keys = [
      this.#jobKey(jobId),
      this.#key('active'),
      this.#key('running'),
      this.#key('finished'),
      this.#key('seq'),
      `${this.#prefix}lease:${jobId}`,
      this.#key('unannounced'),
    ];
    const reply = (await this.#redis.script(script, keys, args)) as [ScriptStatus, string[]?];
    const [status, flat] = reply;
    return flat ? { status, job: decodeJob(pairsToObject(flat)) } : { status };
  }

  #key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  #jobKey(jobId: string): string {
    return `${this.#prefix}job:${jobId}`;
  }

  #channel(): string {
    return `${this.#prefix}cancel`;
  }

  /** On a cluster, cancels go out on one sharded channel per bucket (jobs of the bucket). */
  #cancelChannel(bucket: number): string {
    return `${this.#prefix}cancel:{${BUCKET_TAGS[bucket]}}`;
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
    try {
      const done = (await this.#redis.script(
        RENEW_LEASES,
        // Routes the script to the node of this store's keys (the script reads per-job keys).
        [this.#key('active')],
        [this.#prefix, this.instanceId, String(this.#leaseMs), ...this.#leased],
      )) as string[];
      for (const jobId of done) this.#leased.delete(jobId);
    } catch (error) {
      // Retried on the next tick; the lease is three renewals long.
      if (!this.#closed) this.#redis.report(error);
    }
  }

  async #sweepQuietly(): Promise<void> {
    try {
      await this.sweepExpiredLeases();
      await this.sweepUnannounced();
    } catch (error) {
      if (!this.#closed) this.#redis.report(error);
    }
  }

  /** Subscribes once per store; resolves when the subscription is active. */
  #subscribe(): Promise<void> {
    const channels = this.#redis.cluster
      ? BUCKET_TAGS.map((_, bucket) => this.#cancelChannel(bucket))
      : [this.#channel()];
    this.#subscribed ??= this.#redis.subscribe(
      channels,
      (jobId) => this.#deliverAll(jobId),
      // After a reconnect, messages sent meanwhile are lost: re-read every watched job.
      () => void this.#poll(),
    );
    return this.#subscribed;
  }

  async #checkAfterSubscribing(jobId: string): Promise<void> {
    // Subscribe first, then read: a cancel is either in the state read or in a later message.
    await this.#subscribe().catch(noop);
    await this.#check([jobId]);
  }

  /** Re-reads watched jobs: delivers cancellations, drops listeners that can never fire. */
  async #check(jobIds: string[]): Promise<void> {
    if (this.#closed || jobIds.length === 0) return;
    let states: (string | null)[][];
    try {
      states = await this.#redis.call((client) =>
        Promise.all(
          jobIds.map((jobId) => client.hmGet(this.#jobKey(jobId), ['status', 'cancelRequested'])),
        ),
      );
    } catch {
      return; // Redis unreachable: the next poll tries again.
    }
    for (const [index, jobId] of jobIds.entries()) {
      const [status, cancelRequested] = states[index] ?? [];
      if (cancelRequested === '1') this.#deliverAll(jobId);
      // Unknown, expired or finished without a cancel: such a listener would only leak.
      else if (!status || isTerminal(status as StoredJob['status'])) this.#takeListeners(jobId);
    }
  }

  async #poll(): Promise<void> {
    await this.#check([...this.#listeners.keys()]);
  }

  #startPolling(): void {
    if (this.#pollTimer !== undefined) return;
    this.#pollTimer = setInterval(() => {
      if (this.#listeners.size > 0) {
        void this.#poll();
        return;
      }
      clearInterval(this.#pollTimer);
      this.#pollTimer = undefined;
    }, this.#pollIntervalMs);
    this.#pollTimer.unref();
  }

  #takeListeners(jobId: string): Set<CancelSubscription> {
    const subscriptions = this.#listeners.get(jobId);
    if (!subscriptions) return new Set();
    this.#listeners.delete(jobId);
    return subscriptions;
  }

  #deliverAll(jobId: string): void {
    for (const subscription of this.#takeListeners(jobId)) {
      if (!subscription.active) continue;
      subscription.active = false;
      try {
        subscription.listener();
      } catch (error) {
        this.#onListenerError(error, jobId);
      }
    }
  }
}

/**
 * WAITs for `replicas` replicas of the primary holding `key`. Never throws: the write it follows
 * succeeded, and failing the call now would turn that success into a reported failure (a caller
 * would retry what is done). Falling short, or not getting an answer, is reported.
 */
async function waitForReplicas(
  redis: RedisConnection,
  key: string,
  replicas: number,
  timeoutMs: number,
): Promise<void> {
  try {
    const acknowledged = await redis.waitForReplicas(key, replicas, timeoutMs);
    if (acknowledged !== undefined && acknowledged < replicas)
      redis.report(
        new Error(
          `Only ${acknowledged} of ${replicas} Redis replicas acknowledged a write within ${timeoutMs} ms: a failover now could lose it.`,
        ),
      );
  } catch (error) {
    redis.report(error);
  }
}

const refuse: Refuse = refusalFor('new RedisJobStore');

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

function pairsToObject(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fields;
}

function decodeJob(fields: Record<string, string>): StoredJob {
  const job: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
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
