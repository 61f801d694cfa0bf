import type { Action, Invocation } from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import type { ApprovalCallbackBody } from '../callbacks/callback-payloads.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type {
  Approval,
  ApprovalDecision,
  ApprovalJob,
  ApprovalListOptions,
  ApprovalPage,
  ApprovalStatus,
} from '../contract/approval.ts';
import type { InvokeRequest } from '../contract/invoke-request.ts';
import type { ApprovalRequiredResponse } from '../contract/invoke-response.ts';
import { approvalUrl, jobUrls } from '../http/routes.ts';
import { startJob } from '../jobs/job-runner.ts';
import { createJob } from '../jobs/new-job.ts';
import type { ApprovalDecidedEvent, ApprovalRequestedEvent } from '../observe/hooks.ts';
import { claimQuota, releaseQuota } from '../quotas/quotas.ts';
import type { SetEntry, VersionedRecord } from '../records/record-store.ts';
import { couldBeIssued, randomId } from '../runtime/fingerprint.ts';
import { MAX_TIMER_MS } from '../runtime/limits.ts';
import { unrefTimer } from '../runtime/timers.ts';
import type { StoredJob } from '../store/job-store.ts';
import { isStoreUnavailableError } from '../store/store-errors.ts';
import { ApprovalDecisionError } from './approval-decision-error.ts';

/** What the record store keeps per approval. */
interface ApprovalRecord {
  readonly approvalId: string;
  readonly ownerId: string;
  readonly principal: Principal;
  readonly actionId: string;
  readonly actionName: string;
  readonly status: ApprovalStatus;
  readonly reason: string;
  /** The caller's input and invocation `context`: only while pending (and until an approved job exists). */
  readonly input?: Record<string, unknown>;
  readonly invocation: Omit<Invocation, 'context'> & { readonly context?: Invocation['context'] };
  readonly callbacks: InvokeRequest['callbacks'];
  readonly fingerprint?: string;
  readonly baseUrl: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly decidedAt?: string;
  readonly decidedBy?: string;
  readonly note?: string;
  readonly jobId?: string;
}

/** What a new approval request carries. */
export interface ApprovalRequest {
  readonly action: Action;
  readonly input: Record<string, unknown>;
  readonly invocation: Invocation;
  readonly principal: Principal;
  readonly callbacks: InvokeRequest['callbacks'];
  readonly reason: string;
  readonly baseUrl: string;
  /** Set under an idempotency key: the approval id is derived from it, and the request fingerprinted. */
  readonly idempotent?: { readonly approvalId: string; readonly fingerprint: string };
}

const keyOf = (approvalId: string): string => `approval:${approvalId}`;
/** The index of approvals with a status: a time-ordered set of approval ids. */
const indexOf = (status: ApprovalStatus): string => `approvals:${status}`;
const MAX_PAGE = 500;
/** Approvals not yet decided or expired, kept past `expiresAt`: what the sweep reads. */
const UNSETTLED = 'approvals:unsettled';
/** Approvals whose decision may be under way: from just before it is written until settled. */
const DECIDING = 'approvals:deciding';
/**
 * How long after a decision its instance may still be starting the job and calling back: past
 * it, a sweep completes the decision (a second instance doing it too would only repeat the
 * callback, with the same `webhook-id`).
 */
const SETTLE_GRACE_MS = 30_000;
/** Entries one sweep reads at most (a page at a time). */
const SWEEP_PAGE = 50;
const SWEEP_MAX_READS = 500;

/** `nextCursor` is the last index entry a page read: `<expiry>.<approvalId>`. */
function encodeCursor(entry: SetEntry): string {
  return `${entry.expiresAt}.${entry.member}`;
}

function decodeCursor(cursor: string): SetEntry {
  const dot = cursor.indexOf('.');
  const expiresAt = Number(cursor.slice(0, dot));
  const member = cursor.slice(dot + 1);
  // The member goes to the store: one that is no approval id (a NUL, kilobytes) is refused here,
  // as some stores would refuse it with an error of their own.
  if (dot < 1 || !Number.isSafeInteger(expiresAt) || !couldBeIssued('apr', member))
    throw new RangeError('approvals.list: cursor is not a nextCursor this gateway returned.');
  return { expiresAt, member };
}

/**
 * Approvals: pending requests stored with their validated input, decided once (compare-and-set
 * `pending → approved | denied`, or `pending → expired` when `expiresAt` passes), an approved
 * action run as a job, and the outcome POSTed to `callbacks.approvalUrl`.
 */
export class ApprovalService {
  readonly #runtime: GatewayRuntime;
  /** Expiry timers by approval id; each holds the id only, never the record. */
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  /** The sweep's interval while its timer is still to be started (see the constructor). */
  #pendingSweepMs = 0;
  #closed = false;
  #sweeping = false;

  /**
   * @param sweepIntervalMs how often to expire pending approvals no instance expired on time
   *   (see {@link sweepExpired}); `0` (the default) never.
   */
  constructor(runtime: GatewayRuntime, sweepIntervalMs = 0) {
    this.#runtime = runtime;
    this.#pendingSweepMs = sweepIntervalMs;
    this.#startSweep();
  }

  /**
   * Starts the sweep timer unless it runs already. A gateway created at a Worker's module scope
   * may not set timers there (workerd refuses them outside a handler): the timer then starts with
   * the first approval call instead.
   */
  #startSweep(): void {
    const intervalMs = this.#pendingSweepMs;
    if (intervalMs <= 0 || this.#closed) return;
    try {
      this.#sweepTimer = setInterval(() => this.#sweepInBackground(), intervalMs);
    } catch {
      return; // outside a handler; retried on the next call
    }
    this.#pendingSweepMs = 0;
    unrefTimer(this.#sweepTimer);
  }

  /** Stores a pending approval and builds the `approval_required` answer (or the idempotent replay's). */
  async request(
    request: ApprovalRequest,
  ): Promise<
    { ok: true; response: ApprovalRequiredResponse } | { ok: false; refused: 'mismatch' | 'quota' }
  > {
    this.#startSweep();
    const runtime = this.#runtime;
    const now = runtime.now();
    const approvalId = request.idempotent?.approvalId ?? randomId('apr');
    const ownerId = request.principal.id;
    // A pending approval counts against its principal's budget until decided or expired.
    if (
      !(await claimQuota(runtime, 'pendingApprovals', ownerId, approvalId, runtime.approvalTtlMs))
    )
      return { ok: false, refused: 'quota' };
    const record: ApprovalRecord = {
      approvalId,
      ownerId,
      // Kept as JSON: a principal from auth.verify may carry methods or handles a store cannot hold.
      principal: JSON.parse(JSON.stringify(request.principal)) as Principal,
      actionId: request.action.id,
      actionName: request.action.name,
      status: 'pending',
      reason: request.reason,
      input: request.input,
      invocation: request.invocation,
      callbacks: request.callbacks,
      ...(request.idempotent ? { fingerprint: request.idempotent.fingerprint } : {}),
      baseUrl: request.baseUrl,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.#runtime.approvalTtlMs).toISOString(),
    };
    let created: boolean;
    let stored: VersionedRecord<ApprovalRecord>;
    try {
      ({ created, record: stored } = await runtime.records.create<ApprovalRecord>(
        keyOf(approvalId),
        record,
        runtime.approvalTtlMs + runtime.approvalRetentionMs,
      ));
      if (created) {
        // Listed as pending until decided, or until it expires (the index drops it by itself).
        await runtime.records.addToSet(indexOf('pending'), approvalId, runtime.approvalTtlMs);
        // Found by any instance's sweep until it is settled, even past `expiresAt`: its own
        // instance may stop before expiring it.
        await runtime.records.addToSet(
          UNSETTLED,
          approvalId,
          runtime.approvalTtlMs + runtime.approvalRetentionMs,
        );
      }
    } catch (error) {
      await releaseQuota(runtime, 'pendingApprovals', ownerId, approvalId);
      throw error;
    }
    // A replay of an approval that is no longer pending holds no budget.
    if (!created && stored.value.status !== 'pending')
      await releaseQuota(runtime, 'pendingApprovals', ownerId, approvalId);
    if (!created && stored.value.fingerprint !== request.idempotent?.fingerprint)
      return { ok: false, refused: 'mismatch' };
    if (created) {
      this.#scheduleExpiry(approvalId, stored.value.expiresAt);
      // Once per approval (a replay is not a new one), before the answer leaves.
      runtime.observer?.approvalRequested(requestedEvent(stored.value));
    }
    return { ok: true, response: approvalRequired(stored.value, request.baseUrl) };
  }

  /**
   * The `approval_required` answer of an earlier request with the same idempotency key, if its
   * approval exists (`mismatch` when that request was a different one); `undefined` otherwise.
   * Only reads: a retry is answered before the precheck and the approval policy run again.
   */
  async replay(
    idempotent: NonNullable<ApprovalRequest['idempotent']>,
    baseUrl: string,
  ): Promise<
    | { ok: true; response: ApprovalRequiredResponse }
    | { ok: false; refused: 'mismatch' }
    | undefined
  > {
    const stored = await this.#read(idempotent.approvalId);
    if (!stored) return undefined;
    if (stored.value.fingerprint !== idempotent.fingerprint)
      return { ok: false, refused: 'mismatch' };
    return { ok: true, response: approvalRequired(stored.value, baseUrl) };
  }

  /** The approval, if it exists (and, given `ownerId`, belongs to that principal). */
  async get(approvalId: string, ownerId?: string): Promise<Approval | undefined> {
    this.#startSweep();
    const stored = await this.#read(approvalId);
    if (!stored || (ownerId !== undefined && stored.value.ownerId !== ownerId)) return undefined;
    return this.#view(stored.value);
  }

  /**
   * One page of approvals with a status (pending by default), oldest first. Reads the status's
   * index, so a page costs the approvals it returns, however many others the store holds.
   */
  async list(options: ApprovalListOptions = {}): Promise<ApprovalPage> {
    this.#startSweep();
    const status = options.status ?? 'pending';
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 100), 1), MAX_PAGE);
    let after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const approvals: Approval[] = [];
    let more = true;
    // Entries whose approval moved on (decided or expired just now) are skipped, so a page may
    // read a little more than it returns; a bounded number of reads keeps it a page.
    for (let reads = 0; approvals.length < limit && more && reads < limit * 4; ) {
      const want = limit - approvals.length;
      const entries = await this.#runtime.records.rangeOfSet(indexOf(status), want, after);
      more = entries.length === want;
      for (const entry of entries) {
        reads += 1;
        after = entry;
        const current = await this.#read(entry.member);
        if (current?.value.status === status) approvals.push(await this.#view(current.value));
        else await this.#runtime.records.removeFromSet(indexOf(status), entry.member);
      }
    }
    const page = approvals as ApprovalPage;
    return more && after ? Object.assign(page, { nextCursor: encodeCursor(after) }) : page;
  }

  /**
   * Decides a pending approval, once. Approved: the action runs as a job (input re-validated
   * first). Throws {@link ApprovalDecisionError} when there is nothing left to decide.
   */
  async decide(
    approvalId: string,
    decision: ApprovalDecision,
  ): Promise<{ approval: Approval; job?: ApprovalJob }> {
    this.#startSweep();
    if (
      typeof decision?.approved !== 'boolean' ||
      typeof decision.decidedBy !== 'string' ||
      !decision.decidedBy
    ) {
      throw new TypeError('A decision needs approved (boolean) and decidedBy (non-empty string).');
    }
    const runtime = this.#runtime;
    const stored = await this.#read(approvalId);
    if (!stored) throw new ApprovalDecisionError('approval_not_found');
    if (stored.value.status === 'expired')
      throw new ApprovalDecisionError('approval_expired', 'expired');
    if (stored.value.status !== 'pending')
      throw new ApprovalDecisionError('approval_already_decided', stored.value.status);

    // One job per approval: the id names this approval *and* when it was requested, so an
    // approval requested again under the same idempotency key (after the first one's record
    // expired) never lands on the first one's job.
    const jobId = decision.approved ? jobIdOf(stored.value) : undefined;
    const decided: ApprovalRecord = {
      // A denial keeps nothing the caller sent; an approval keeps it until its job exists.
      ...(decision.approved ? stored.value : withoutRequest(stored.value)),
      status: decision.approved ? 'approved' : 'denied',
      decidedAt: new Date(runtime.now()).toISOString(),
      decidedBy: decision.decidedBy,
      ...(decision.note !== undefined ? { note: decision.note } : {}),
      ...(jobId ? { jobId } : {}),
    };
    // Marked first: if this instance stops between the write and the job or the callback, any
    // instance's sweep finishes the decision.
    await runtime.records.addToSet(DECIDING, approvalId, runtime.approvalRetentionMs);
    const written = await runtime.records.replace(
      keyOf(approvalId),
      stored.version,
      decided,
      runtime.approvalRetentionMs,
    );
    if (!written) {
      // Someone else decided (or it expired) in between: single-use wins.
      const now = await this.#read(approvalId);
      throw new ApprovalDecisionError(
        now?.value.status === 'expired' ? 'approval_expired' : 'approval_already_decided',
        now?.value.status,
      );
    }
    this.#clearTimer(approvalId);

    let job: ApprovalJob | undefined;
    try {
      job = await this.#jobOf(decided);
    } catch (error) {
      // No job, no decision: put the approval back to pending so it can be decided again once
      // the job store recovers (the caller sees the store's error, e.g. a 503-worthy one).
      await runtime.records
        .replace(
          keyOf(approvalId),
          written.version,
          stored.value,
          runtime.approvalTtlMs + runtime.approvalRetentionMs,
        )
        .catch(() => undefined);
      this.#scheduleExpiry(approvalId, stored.value.expiresAt);
      throw error;
    }
    await this.#settled(decided, written.version);
    this.#notify(decided, job);
    // As stored now: settled, it keeps nothing the caller sent.
    const approval = await this.#view(withoutRequest(decided));
    // One reading of the job for both: a quick action may have finished since it was created.
    return job ? { approval, job: approval.job ?? job } : { approval };
  }

  /**
   * An approved approval's job, created (once: its id is derived from the approval) and started
   * by whoever creates it. `undefined` for a denial, or an action this gateway no longer has.
   */
  async #jobOf(decided: ApprovalRecord): Promise<ApprovalJob | undefined> {
    const runtime = this.#runtime;
    const action = runtime.actionsById.get(decided.actionId);
    if (!decided.jobId || !action) return undefined;
    const created = await runtime.jobs.create(
      createJob({
        jobId: decided.jobId,
        ownerId: decided.ownerId,
        action: { id: decided.actionId, name: decided.actionName },
        // Dropped only once this job exists: an interrupted decide still has them here.
        invocation: { ...decided.invocation, context: decided.invocation.context ?? {} },
        callbacks: decided.callbacks,
        input: decided.input ?? {},
        fingerprint: decided.fingerprint,
        approvalId: decided.approvalId,
        now: runtime.now(),
      }),
    );
    // Created by an earlier, interrupted decide of this very approval: it is this job.
    if (created.created) startJob(runtime, created.job, action, decided.principal);
    return this.#jobLinks(decided.baseUrl, created.job);
  }

  /**
   * Finishes what an instance that stopped (or restarted) left undone, and returns how many
   * approvals it touched:
   * - pending approvals past their `expiresAt` that nobody expired (the requesting instance's
   *   timer is gone): expired, with their `expired` callback, once across instances (the expiry
   *   is a compare-and-set);
   * - decisions interrupted between the record write and the end (30 s after `decidedAt`, or
   *   `expiresAt` for an expiry): the approved action's job is created and started if it does not
   *   exist, and the approval callback is sent.
   *
   * Both indexes are read in time order and the sweep stops at the first entry not yet due, so a
   * sweep with nothing to do reads one entry of each. An entry that fails is logged and skipped.
   *
   * @example
   * const touched = await approvals.sweepExpired();
   */
  async sweepExpired(): Promise<number> {
    const now = this.#runtime.now();
    const expiring = await this.#sweepIndex(UNSETTLED, (record) => {
      if (record.status === 'pending')
        return Date.parse(record.expiresAt) <= now ? 'finish' : 'stop';
      // Expired, but the instance that expired it stopped before settling it.
      if (record.status === 'expired')
        return Date.parse(record.expiresAt) + SETTLE_GRACE_MS <= now ? 'finish' : 'skip';
      return 'skip'; // decided: the deciding index covers it
    });
    const deciding = await this.#sweepIndex(DECIDING, (record, entry) => {
      if (record.status === 'approved' || record.status === 'denied') {
        const decidedAt = Date.parse(record.decidedAt ?? record.createdAt);
        return decidedAt + SETTLE_GRACE_MS <= now ? 'finish' : 'stop';
      }
      // Still pending: a decision that never wrote, or was undone; forgotten once surely over.
      if (record.status === 'pending')
        return entry.expiresAt - this.#runtime.approvalRetentionMs + SETTLE_GRACE_MS <= now
          ? 'drop'
          : 'skip';
      return 'drop';
    });
    return expiring + deciding;
  }

  /** Walks one sweep index in order, acting on each approval as `verdict` says. */
  async #sweepIndex(
    index: string,
    verdict: (record: ApprovalRecord, entry: SetEntry) => 'finish' | 'skip' | 'drop' | 'stop',
  ): Promise<number> {
    const { records } = this.#runtime;
    let touched = 0;
    let after: SetEntry | undefined;
    // A gateway closing stops sweeping between reads: its stores may be closing too.
    for (let reads = 0; reads < SWEEP_MAX_READS && !this.#runtime.closing.aborted; ) {
      const entries = await records.rangeOfSet(index, SWEEP_PAGE, after);
      for (const entry of entries) {
        reads += 1;
        after = entry;
        const stored = await records.get<ApprovalRecord>(keyOf(entry.member));
        const action = stored ? verdict(stored.value, entry) : 'drop';
        if (action === 'stop') return touched;
        if (action === 'drop') await records.removeFromSet(index, entry.member);
        if (action !== 'finish' || !stored) continue;
        try {
          await this.#finish(stored);
          touched += 1;
        } catch (error) {
          // One approval that cannot be finished (a full job store…) must not stop the others.
          if (isStoreUnavailableError(error)) throw error;
          this.#runtime.logger.error('approval sweep could not finish an approval', {
            approvalId: entry.member,
            error,
          });
        }
      }
      if (entries.length < SWEEP_PAGE) break;
    }
    return touched;
  }

  /** Expires a due pending approval, or completes an interrupted decision or expiry. */
  async #finish(stored: VersionedRecord<ApprovalRecord>): Promise<void> {
    if (stored.value.status === 'pending') {
      await this.#expireIfDue(stored);
      return;
    }
    const job = await this.#jobOf(stored.value);
    await this.#settled(stored.value, stored.version);
    this.#notify(stored.value, job);
  }

  #sweepInBackground(): void {
    if (this.#sweeping) return;
    this.#sweeping = true;
    this.#runtime.background(
      this.sweepExpired()
        .catch((error: unknown) => {
          // An unreachable store is an outage its adapter reports; the next sweep retries.
          if (!isStoreUnavailableError(error))
            this.#runtime.logger.error('approval sweep failed', { error });
        })
        .finally(() => {
          this.#sweeping = false;
        }),
    );
  }

  /** Stops expiry timers and the sweep (the records stay in the store). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #read(approvalId: string): Promise<VersionedRecord<ApprovalRecord> | undefined> {
    // An id never handed out is not looked up: some stores refuse odd keys with an error.
    if (!couldBeIssued('apr', approvalId)) return undefined;
    const stored = await this.#runtime.records.get<ApprovalRecord>(keyOf(approvalId));
    return stored ? this.#expireIfDue(stored) : undefined;
  }

  /** Moves a pending approval past its `expiresAt` to `expired` (once) and reports it. */
  async #expireIfDue(
    stored: VersionedRecord<ApprovalRecord>,
  ): Promise<VersionedRecord<ApprovalRecord> | undefined> {
    if (
      stored.value.status !== 'pending' ||
      Date.parse(stored.value.expiresAt) > this.#runtime.now()
    )
      return stored;
    const expired: ApprovalRecord = {
      ...withoutRequest(stored.value),
      status: 'expired',
      decidedAt: stored.value.expiresAt,
    };
    const written = await this.#runtime.records.replace(
      keyOf(stored.value.approvalId),
      stored.version,
      expired,
      this.#runtime.approvalRetentionMs,
    );
    this.#clearTimer(stored.value.approvalId);
    if (written) {
      await this.#settled(expired, written.version);
      this.#notify(expired, undefined);
      return written;
    }
    return this.#runtime.records.get<ApprovalRecord>(keyOf(stored.value.approvalId));
  }

  /**
   * An approval that left `pending`: out of the pending index and budget, into its status's index.
   * An approved one whose job now exists drops the caller's input and context (the job has them).
   */
  async #settled(record: ApprovalRecord, version: number): Promise<void> {
    const { records } = this.#runtime;
    if (record.input !== undefined || record.invocation.context !== undefined) {
      // A conflict means another instance settled it meanwhile, and dropped them itself.
      await records.replace(
        keyOf(record.approvalId),
        version,
        withoutRequest(record),
        this.#runtime.approvalRetentionMs,
      );
    }
    await records.addToSet(
      indexOf(record.status),
      record.approvalId,
      this.#runtime.approvalRetentionMs,
    );
    await records.removeFromSet(indexOf('pending'), record.approvalId);
    await records.removeFromSet(UNSETTLED, record.approvalId);
    await records.removeFromSet(DECIDING, record.approvalId);
    await releaseQuota(this.#runtime, 'pendingApprovals', record.ownerId, record.approvalId);
  }

  #scheduleExpiry(approvalId: string, expiresAt: string): void {
    const delay = Math.min(Math.max(0, Date.parse(expiresAt) - this.#runtime.now()), MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.#timers.delete(approvalId);
      this.#runtime.background(
        this.#read(approvalId).catch((error: unknown) =>
          this.#runtime.logger.error('approval expiry failed', { approvalId, error }),
        ),
      );
    }, delay + 1);
    // Expiry must not keep a process alive on its own.
    unrefTimer(timer);
    this.#timers.set(approvalId, timer);
  }

  #clearTimer(approvalId: string): void {
    const timer = this.#timers.get(approvalId);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(approvalId);
  }

  #notify(record: ApprovalRecord, job: ApprovalJob | undefined): void {
    const observer = this.#runtime.observer;
    if (observer && record.status !== 'pending') observer.approvalDecided(decidedEvent(record));
    const url = record.callbacks.approvalUrl;
    if (!url || !this.#runtime.callbacks || record.status === 'pending') return;
    const body: ApprovalCallbackBody = {
      approval: {
        approvalId: record.approvalId,
        status: record.status,
        decidedAt: record.decidedAt ?? new Date(this.#runtime.now()).toISOString(),
        ...(record.decidedBy !== undefined ? { decidedBy: record.decidedBy } : {}),
        ...(record.note !== undefined ? { note: record.note } : {}),
        ...(job ? { job: { jobId: job.jobId, status: job.status, statusUrl: job.statusUrl } } : {}),
      },
    };
    const delivery = {
      url,
      body,
      webhookId: `approval_${record.approvalId}_${record.status}`,
      authorization: record.callbacks.authorization,
      principal: record.ownerId,
    };
    void (observer
      ? observer.dispatch(this.#runtime.callbacks, delivery, {
          kind: 'approval',
          approvalId: record.approvalId,
          ...(record.jobId !== undefined ? { jobId: record.jobId } : {}),
          invocationId: record.invocation.invocationId,
          actionId: record.actionId,
          principalId: record.ownerId,
        })
      : this.#runtime.callbacks.dispatch(delivery));
  }

  #jobLinks(baseUrl: string, job: StoredJob): ApprovalJob {
    return { jobId: job.jobId, status: job.status, ...jobUrls(baseUrl, job.jobId) };
  }

  async #view(record: ApprovalRecord): Promise<Approval> {
    let job: ApprovalJob | undefined;
    if (record.jobId) {
      const stored = await this.#runtime.jobs.get(record.jobId);
      if (stored) job = this.#jobLinks(record.baseUrl, stored);
    }
    return {
      approvalId: record.approvalId,
      status: record.status,
      reason: record.reason,
      actionId: record.actionId,
      actionName: record.actionName,
      ...(record.input !== undefined ? { input: record.input } : {}),
      invocationId: record.invocation.invocationId,
      meetingId: record.invocation.meeting.id,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      ...(record.decidedAt !== undefined ? { decidedAt: record.decidedAt } : {}),
      ...(record.decidedBy !== undefined ? { decidedBy: record.decidedBy } : {}),
      ...(record.note !== undefined ? { note: record.note } : {}),
      ...(job ? { job } : {}),
    };
  }
}

/** What `onApprovalRequested` receives: ids and reason; the input only on request. */
function requestedEvent(record: ApprovalRecord): ApprovalRequestedEvent {
  return {
    ...approvalIds(record),
    actionName: record.actionName,
    reason: record.reason,
    expiresAt: record.expiresAt,
    validatedInput: () => record.input ?? {},
  };
}

/** What `onApprovalDecided` receives (decided or expired). */
function decidedEvent(record: ApprovalRecord): ApprovalDecidedEvent {
  return {
    ...approvalIds(record),
    status: record.status as ApprovalDecidedEvent['status'],
    ...(record.decidedBy !== undefined ? { decidedBy: record.decidedBy } : {}),
    ...(record.jobId !== undefined ? { jobId: record.jobId } : {}),
  };
}

function approvalIds(record: ApprovalRecord) {
  return {
    approvalId: record.approvalId,
    invocationId: record.invocation.invocationId,
    actionId: record.actionId,
    principalId: record.ownerId,
    ...(record.invocation.traceId !== undefined ? { traceId: record.invocation.traceId } : {}),
  };
}

/** The record without what the caller sent (its input, its invocation's `context`). */
function withoutRequest(record: ApprovalRecord): ApprovalRecord {
  const { input: _input, invocation, ...rest } = record;
  const { context: _context, ...ids } = invocation;
  return { ...rest, invocation: ids };
}

/** `job_<approval id>_<request time>`: unique per approval *request*, stable across retries of decide. */
function jobIdOf(record: ApprovalRecord): string {
  return `job_${record.approvalId.replace(/^apr_/, '')}_${Date.parse(record.createdAt).toString(36)}`;
}

/** The `approval_required` answer for a stored approval (first answer and replays alike). */
function approvalRequired(record: ApprovalRecord, baseUrl: string): ApprovalRequiredResponse {
  return {
    status: 'approval_required',
    approval: {
      approvalId: record.approvalId,
      reason: record.reason,
      statusUrl: approvalUrl(baseUrl, record.approvalId),
      expiresAt: record.expiresAt,
    },
  };
}
