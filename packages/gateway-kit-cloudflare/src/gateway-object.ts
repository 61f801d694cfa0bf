import { DurableObject } from 'cloudflare:workers';
import {
  type Approval,
  type ApprovalDecision,
  ApprovalDecisionError,
  type ApprovalListOptions,
  createGateway,
  type Gateway,
  GatewayConfigError,
  type GatewayOptions,
} from '@svc/gateway-kit';
import { checkOptionNames, refusalFor } from '@svc/gateway-kit/store';
import {
  DurableCallbackOutbox,
  type DurableCallbackOutboxOptions,
  outboxLimits,
} from './durable-callback-outbox.ts';
import {
  DurableJobStore,
  type DurableJobStoreOptions,
  jobStoreLimits,
} from './durable-job-store.ts';
import {
  DurableRecordStore,
  type DurableRecordStoreOptions,
  recordStoreLimits,
} from './durable-record-store.ts';
import type { DurableStorage } from './durable-storage.ts';
import { isConfigError, logRefusal, refusedResponse } from './refused-config.ts';
import { optionChecks } from './time.ts';

/** The part of a Durable Object's `ctx` the gateway object uses (workerd's `DurableObjectState`). */
export interface DurableObjectStateLike {
  /** The object's storage: its SQLite database and its one alarm. */
  readonly storage: DurableStorage & {
    /** Sets the alarm (epoch ms), replacing one already set. */
    setAlarm(scheduledTime: number): Promise<void>;
    /** Removes the alarm. */
    deleteAlarm(): Promise<void>;
  };
  /** Holds every other event of the object until `callback` settles (its start-up recovery). */
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

/**
 * Everything `createGateway` takes, but what the Durable Object provides itself: `jobStore`,
 * `recordStore`, `waitUntil` and `now` are refused (each object answers 500 internal_error).
 */
export type WorkerGatewayOptions = Omit<
  GatewayOptions,
  'jobStore' | 'recordStore' | 'waitUntil' | 'now'
>;

/**
 * The options of `createGateway` the object provides itself, and why. Given in what `gateway(env)`
 * returns (from JavaScript: the type omits them), they are refused: the object's stores would
 * replace those without a word, and a `waitUntil` or `now` would reach the gateway alone, its
 * stores and alarm ignoring it.
 */
const PROVIDED_BY_OBJECT = {
  jobStore: 'its DurableJobStore, whose options are stores.jobs',
  recordStore: 'its DurableRecordStore, whose options are stores.records',
  waitUntil: 'it keeps its background work alive itself, and its alarm recovers jobs',
  now: 'its stores and alarm keep Date.now, a gateway clock of its own would disagree with them',
} as const satisfies Record<Exclude<keyof GatewayOptions, keyof WorkerGatewayOptions>, string>;

/**
 * Refuses, as `factory`'s, an option of {@link PROVIDED_BY_OBJECT} in what `gateway(env)` returned,
 * naming it, never its value. Anything else is `createGateway`'s to judge.
 */
function refuseProvided(factory: string, options: unknown): void {
  if (typeof options !== 'object' || options === null) return;
  const given = Object.entries(options)
    .filter(([name, value]) => Object.hasOwn(PROVIDED_BY_OBJECT, name) && value !== undefined)
    .map(([name]) => name as keyof typeof PROVIDED_BY_OBJECT);
  if (given.length === 0) return;
  throw new GatewayConfigError(
    `${factory}: gateway(env) returned ${given.map((name) => `"${name}"`).join(', ')}, which the Durable Object provides itself (${given.map((name) => `${name}: ${PROVIDED_BY_OBJECT[name]}`).join('; ')}): remove ${given.length === 1 ? 'it' : 'them'}.`,
  );
}

/**
 * How the gateway's Durable Object is built: the gateway options from the Worker's bindings, and
 * the stores' limits.
 *
 * @example
 * const settings: GatewayObjectSettings<Env> = {
 *   gateway: (env) => ({ gateway: { id: 'acme', name: 'Acme' }, actions, auth: { tokens: [env.GATEWAY_TOKEN] } }),
 * };
 */
export interface GatewayObjectSettings<Env> {
  /**
   * The gateway's options (everything but the stores, `waitUntil` and `now`), from the Worker's
   * bindings and secrets.
   */
  readonly gateway: (env: Env) => WorkerGatewayOptions;
  /** Limits of the object's stores (each object holds one shard: one principal's state). */
  readonly stores?: {
    /** Prefix of the stores' table names: a letter or `_`, then letters, digits, `_`. Default `gw_`. */
    readonly prefix?: string;
    /** Options of the object's {@link DurableJobStore}. */
    readonly jobs?: Omit<DurableJobStoreOptions, 'prefix' | 'callbackOutbox' | 'now'>;
    /** Options of the object's {@link DurableRecordStore}. */
    readonly records?: Omit<DurableRecordStoreOptions, 'prefix' | 'now'>;
    /** Options of the object's {@link DurableCallbackOutbox}. */
    readonly outbox?: Omit<DurableCallbackOutboxOptions, 'prefix' | 'now'>;
  };
  /**
   * While jobs are queued or running, how often the alarm checks on them, in ms: an object evicted
   * or restarted mid-job is woken by it, and its jobs are run again or failed (see docs/cloudflare.md).
   * Default 30 000; a function reads it from the Worker's bindings.
   */
  readonly watchIntervalMs?: number | ((env: Env) => number);
}

/** What `decideApproval` answers: the decision, or the refusal as data (RPC keeps no error class). */
export type DecisionAnswer =
  | {
      /** The decision was recorded. */
      readonly ok: true;
      /** The approval after the decision. */
      readonly approval: Approval;
      /** The job approving started, as created; absent for a denial. */
      readonly job?: Awaited<ReturnType<Gateway['approvals']['decide']>>['job'];
    }
  | {
      /** The decision was refused. */
      readonly ok: false;
      /** Why: the `code` of the `ApprovalDecisionError`. */
      readonly code: ApprovalDecisionError['code'];
      /** The approval's status when the decision was refused; absent when there is no such approval. */
      readonly status?: Approval['status'];
    };

/** The gateway's Durable Object, as the Worker's entry and the operator API call it (RPC). */
export interface GatewayObjectApi {
  /** Serves one gateway request; a refused configuration answers the contract's 500 envelope. */
  fetch(request: Request): Promise<Response>;
  /** The Durable Object alarm: recovers jobs, expires approvals, attempts due callbacks, re-arms. */
  alarm(): Promise<void>;
  /** A page as plain data (an array's extra properties do not survive RPC). */
  listApprovals(options?: ApprovalListOptions): Promise<{
    /** The approvals of the page. */
    readonly approvals: Approval[];
    /** Pass as `cursor` for the next page; absent on the last page. */
    readonly nextCursor?: string;
  }>;
  /** One approval held by this object, or `undefined`, as `gateway.approvals.get`. */
  getApproval(approvalId: string): Promise<Approval | undefined>;
  /** Decides a pending approval, as `gateway.approvals.decide`, with a refusal as data. */
  decideApproval(approvalId: string, decision: ApprovalDecision): Promise<DecisionAnswer>;
  /** Runs this object's approval sweep now, as `gateway.approvals.sweep`. */
  sweepApprovals(): Promise<number>;
}

/** The Durable Object class to export from the Worker's main module. */
export type GatewayObjectClass<Env> = new (
  ctx: DurableObjectStateLike,
  env: Env,
) => GatewayObjectApi;

/** The approval sweep's interval inside the object (its alarm also sweeps when an approval is due). */
const APPROVAL_SWEEP_MS = 1_000;
/** Earliest an alarm is set after now, in ms: bursts of due work are coalesced. */
const MIN_ALARM_DELAY_MS = 50;

/**
 * Builds the Durable Object class that runs a gateway on its own SQLite storage: the job store,
 * record store (idempotency keys, approvals, quota sets) and callback outbox are
 * {@link DurableJobStore}, {@link DurableRecordStore} and {@link DurableCallbackOutbox}, and one
 * alarm keeps time for all of them:
 *
 * - on start (a request or the alarm woke the object) jobs an earlier instance left are taken
 *   over: queued ones run, running ones run again if their action is idempotent, others fail
 *   `worker_lost`; finished jobs whose callback was never handed over are called back;
 * - while jobs are active, the alarm checks on them every `watchIntervalMs`;
 * - pending callbacks are attempted when due, approvals expire at `expiresAt`, finished jobs and
 *   records are deleted when their time is up, even when no request comes.
 *
 * What needs no binding is checked when it is called (at the Worker module's top level): an
 * unknown name in `settings` or its `stores`, a store option's value the store would refuse
 * (`stores: { jobs: { maxJobs: -1 } }`), a `watchIntervalMs` number, throw a `GatewayConfigError`.
 * A `watchIntervalMs` function and `gateway(env)` are called, and refused, by each object (its
 * answer may not hold `jobStore`, `recordStore`, `waitUntil` or `now`: the object provides them).
 *
 * @example
 * export const GatewayObject = gatewayObject<Env>({ gateway: (env) => demoOptions(env) });
 */
export function gatewayObject<Env>(settings: GatewayObjectSettings<Env>): GatewayObjectClass<Env> {
  checkOptionNames('gatewayObject', settings, SETTINGS_OPTION_NAMES);
  if (typeof settings.gateway !== 'function')
    refusalFor('gatewayObject')(
      'gateway',
      settings.gateway,
      'expected a function (env) => createGateway options.',
    );
  return buildGatewayObject(settings, 'gatewayObject');
}

/** The names of {@link GatewayObjectSettings}: any other is refused (a misspelt one would be ignored). */
const SETTINGS_OPTION_NAMES: readonly string[] = Object.keys({
  gateway: true,
  stores: true,
  watchIntervalMs: true,
} satisfies Record<keyof GatewayObjectSettings<unknown>, true>);

type StoresSettings = NonNullable<GatewayObjectSettings<unknown>['stores']>;

/** The names of `stores`. */
const STORES_OPTION_NAMES: readonly string[] = Object.keys({
  prefix: true,
  jobs: true,
  records: true,
  outbox: true,
} satisfies Record<keyof StoresSettings, true>);

/** The names of each store's options in `stores` (not those the object sets itself). */
const STORE_OPTION_NAMES: { readonly [Name in 'jobs' | 'records' | 'outbox']: string[] } = {
  jobs: Object.keys({
    maxJobs: true,
    maxBytes: true,
    retentionMs: true,
    maxFinishedPerOwner: true,
    onListenerError: true,
    maxResumes: true,
  } satisfies Record<keyof NonNullable<StoresSettings['jobs']>, true>),
  records: Object.keys({
    maxRecords: true,
    maxBytes: true,
    maxMembers: true,
  } satisfies Record<keyof NonNullable<StoresSettings['records']>, true>),
  outbox: Object.keys({
    leaseMs: true,
    pollIntervalMs: true,
    maxEntries: true,
    maxEntriesPerPrincipal: true,
    maxBytesPerPrincipal: true,
    ttlMs: true,
  } satisfies Record<keyof NonNullable<StoresSettings['outbox']>, true>),
};

/**
 * Refuses, as `factory`'s, a `stores` (or a store's options in it) that is not an options object
 * or holds a name it does not know, worded as `createGateway`'s nested refusals:
 * `createGatewayWorker: stores.jobs: unknown option "maxJob" (known: …).` The settings are static:
 * this runs when the Worker's module loads, where a mistake fails the deploy.
 */
function checkStores(factory: string, stores: unknown): void {
  if (stores === undefined) return;
  checkNested(factory, 'stores', stores, STORES_OPTION_NAMES);
  const given = stores as Record<string, unknown>;
  for (const name of ['jobs', 'records', 'outbox'] as const)
    if (given[name] !== undefined)
      checkNested(factory, `stores.${name}`, given[name], STORE_OPTION_NAMES[name]);
}

function checkNested(factory: string, path: string, options: unknown, known: readonly string[]) {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refusalFor(factory)(path, options, 'expected an options object.');
  // The path after the factory's name: `<factory>: <path>: unknown option "x" (known: …).`
  checkOptionNames(`${factory}: ${path}`, options, known);
}

/**
 * {@link gatewayObject} once `settings` passed the checks of `factory` (`gatewayObject` or
 * `createGatewayWorker`, whose name the refusals then carry).
 */
export function buildGatewayObject<Env>(
  settings: GatewayObjectSettings<Env>,
  factory: string,
): GatewayObjectClass<Env> {
  const check = optionChecks(factory);
  checkStores(factory, settings.stores);
  const prefix = check.tablePrefix(settings.stores?.prefix ?? 'gw_', 'stores.prefix');
  // The stores' options and a static `watchIntervalMs` need no binding: checked now, at the
  // module's top level, with the stores' own rules, so that a mistake fails the deploy instead of
  // every object's start. Copied, so that what the objects use is what was checked.
  const jobs = { ...settings.stores?.jobs };
  const records = { ...settings.stores?.records };
  const outbox = { ...settings.stores?.outbox };
  jobStoreLimits(jobs, factory, 'stores.jobs.');
  recordStoreLimits(records, factory, 'stores.records.');
  outboxLimits(outbox, factory, 'stores.outbox.');
  const watch = settings.watchIntervalMs;
  // A function of `env` is called, and its answer checked, by each object (refused there as a
  // configuration: every request answers 500 internal_error).
  const watchIntervalMs =
    typeof watch === 'function' ? watch : check.timerMs('watchIntervalMs', watch ?? 30_000);

  return class GatewayObject extends DurableObject<Env> implements GatewayObjectApi {
    readonly #jobs: DurableJobStore;
    readonly #records: DurableRecordStore;
    readonly #outbox: DurableCallbackOutbox;
    /** The gateway, or why its configuration was refused (then every request answers 500). */
    readonly #gateway: Gateway | Error;
    readonly #sweepIntervalMs: number = APPROVAL_SWEEP_MS;
    readonly #watchIntervalMs: number = 30_000;
    #armedAt: number | undefined;

    constructor(ctx: DurableObjectStateLike, env: Env) {
      super(ctx, env);
      const storage = ctx.storage;
      this.#outbox = new DurableCallbackOutbox(storage, { ...outbox, prefix });
      this.#jobs = new DurableJobStore(storage, { ...jobs, prefix, callbackOutbox: this.#outbox });
      this.#records = new DurableRecordStore(storage, { ...records, prefix });
      storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${prefix}wakeups (at INTEGER NOT NULL)`);
      try {
        this.#watchIntervalMs =
          typeof watchIntervalMs === 'number'
            ? watchIntervalMs
            : check.timerMs('watchIntervalMs', watchIntervalMs(env) ?? 30_000);
        const options = settings.gateway(env);
        refuseProvided(factory, options);
        this.#sweepIntervalMs = options.approvals?.sweepIntervalMs ?? APPROVAL_SWEEP_MS;
        const hooks = options.hooks;
        this.#gateway = createGateway({
          ...options,
          approvals: { ...options.approvals, sweepIntervalMs: this.#sweepIntervalMs },
          hooks: {
            ...hooks,
            // A pending approval must expire on time even if the object is evicted meanwhile.
            onApprovalRequested: (event) => {
              this.#wakeAt(Date.parse(event.expiresAt));
              return hooks?.onApprovalRequested?.(event);
            },
          },
          jobStore: this.#jobs,
          recordStore: this.#records,
        });
      } catch (error) {
        // Workers have no start-up at which to fail: a refused configuration (a secret unset or
        // wrong) is logged once, and every request answers the contract's 500 envelope. Jobs and
        // callbacks wait, untouched, for an object whose configuration is accepted.
        if (!isConfigError(error)) throw error;
        logRefusal(error);
        this.#gateway = error;
        return;
      }
      this.#outbox.onChange = () => void this.#arm();
      void ctx.blockConcurrencyWhile(async () => {
        await this.#jobs.recover();
        await this.#arm();
      });
    }

    /** The gateway; throws the refusal (its message, never a value) when there is none. */
    #served(): Gateway {
      if (this.#gateway instanceof Error) throw new GatewayConfigError(this.#gateway.message);
      return this.#gateway;
    }

    async fetch(request: Request): Promise<Response> {
      if (this.#gateway instanceof Error) return refusedResponse();
      const response = await this.#gateway.fetch(request);
      await this.#arm();
      return response;
    }

    async alarm(): Promise<void> {
      this.#armedAt = undefined;
      if (this.#gateway instanceof Error) {
        // Jobs and callbacks wait, untouched, for an accepted configuration: while there are any,
        // the alarm looks again every watch interval, so that the object a fixed configuration
        // starts (an alarm outlives deployments) takes them up without waiting for a request.
        const now = Date.now();
        if (this.#nextDueAt(now) !== undefined) {
          this.#armedAt = now + this.#watchIntervalMs;
          await this.ctx.storage.setAlarm(this.#armedAt);
        }
        return;
      }
      const gateway = this.#gateway;
      await this.#jobs.recover();
      const now = Date.now();
      const sql = this.ctx.storage.sql;
      const approvalsDue =
        sql
          .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${prefix}wakeups WHERE at <= ?`, now)
          .one().n > 0;
      const work: Promise<unknown>[] = [];
      // The gateway's sweep expires the approval and queues its callback (idle() waits for it).
      if (approvalsDue) work.push(gateway.approvals.sweep());
      const due = this.#outbox.nextDueAt();
      if (due !== undefined && due <= now)
        work.push(this.#outbox.nextPoll(this.#outbox.pollIntervalMs * 3));
      await Promise.all(work);
      sql.exec(`DELETE FROM ${prefix}wakeups WHERE at <= ?`, now);
      // Jobs run again, callbacks being attempted: the alarm invocation lasts until they end.
      await gateway.idle();
      await this.#arm();
    }

    async listApprovals(
      options?: ApprovalListOptions,
    ): Promise<{ readonly approvals: Approval[]; readonly nextCursor?: string }> {
      const page = await this.#served().approvals.list(options);
      return page.nextCursor === undefined
        ? { approvals: [...page] }
        : { approvals: [...page], nextCursor: page.nextCursor };
    }

    async getApproval(approvalId: string): Promise<Approval | undefined> {
      return this.#served().approvals.get(approvalId);
    }

    async sweepApprovals(): Promise<number> {
      const touched = await this.#served().approvals.sweep();
      // The callbacks it queued wait in the outbox: the alarm sees they are due.
      await this.#arm();
      return touched;
    }

    async decideApproval(approvalId: string, decision: ApprovalDecision): Promise<DecisionAnswer> {
      try {
        const decided = await this.#served().approvals.decide(approvalId, decision);
        await this.#arm();
        return { ok: true, ...decided };
      } catch (error) {
        if (error instanceof ApprovalDecisionError) {
          return {
            ok: false,
            code: error.code,
            ...(error.status === undefined ? {} : { status: error.status }),
          };
        }
        throw error;
      }
    }

    #wakeAt(at: number): void {
      if (!Number.isFinite(at)) return;
      this.ctx.storage.sql.exec(`INSERT INTO ${prefix}wakeups (at) VALUES (?)`, at);
      void this.#arm();
    }

    /**
     * The earliest time something is due (a job to check on, a callback, an expiry, a wakeup),
     * or `undefined` when nothing is.
     */
    #nextDueAt(now: number): number | undefined {
      const wakeup = this.ctx.storage.sql
        .exec<{ at: number | null }>(`SELECT MIN(at) AS at FROM ${prefix}wakeups`)
        .one().at;
      const candidates = [
        this.#jobs.hasActiveJobs() ? now + this.#watchIntervalMs : undefined,
        this.#outbox.nextDueAt(),
        this.#jobs.sweep(),
        this.#records.sweep(),
        wakeup ?? undefined,
      ].filter((at): at is number => at !== undefined);
      return candidates.length === 0 ? undefined : Math.min(...candidates);
    }

    /** Sets the alarm to the earliest time something is due, or removes it when nothing is. */
    async #arm(): Promise<void> {
      const now = Date.now();
      const due = this.#nextDueAt(now);
      if (due === undefined) {
        if (this.#armedAt !== undefined) {
          this.#armedAt = undefined;
          await this.ctx.storage.deleteAlarm();
        }
        return;
      }
      const at = Math.max(due, now + MIN_ALARM_DELAY_MS);
      // An alarm already set earlier covers this one (it re-arms when it runs).
      if (this.#armedAt !== undefined && this.#armedAt <= at && this.#armedAt > now) return;
      this.#armedAt = at;
      await this.ctx.storage.setAlarm(at);
    }
  };
}
