import type { Action, Invocation } from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import type { ApprovalCallbackBody } from '../callbacks/callback-payloads.ts';
import type { InvokeRequest } from '../contract/invoke-request.ts';
import type { ApprovalRequiredResponse } from '../contract/invoke-response.ts';
import type { Job } from '../contract/job.ts';
import { randomId } from '../gateway/fingerprint.ts';
import { type GatewayRuntime, type JobPayload, jobUrls } from '../gateway/gateway-runtime.ts';
import { toJobResource } from '../jobs/job-resource.ts';
import { startJob } from '../jobs/job-runner.ts';
import type { StoredJob } from '../jobs/job-store.ts';
import type { VersionedRecord } from '../records/record-store.ts';
import type { Approval, ApprovalDecision, ApprovalStatus } from './approval.ts';
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
  readonly input: Record<string, unknown>;
  readonly invocation: Invocation;
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
// Decided and expired approvals stay readable this long, like finished jobs.
const RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Approvals: pending requests stored with their validated input, decided once (compare-and-set
 * `pending → approved | denied`, or `pending → expired` when `expiresAt` passes), an approved
 * action run as a job, and the outcome POSTed to `callbacks.approvalUrl`.
 */
export class ApprovalService {
  readonly #runtime: GatewayRuntime;
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(runtime: GatewayRuntime) {
    this.#runtime = runtime;
  }

  /** Stores a pending approval and builds the `approval_required` answer (or the idempotent replay's). */
  async request(
    request: ApprovalRequest,
  ): Promise<{ ok: true; response: ApprovalRequiredResponse } | { ok: false; mismatch: true }> {
    const now = this.#runtime.now();
    const approvalId = request.idempotent?.approvalId ?? randomId('apr');
    const record: ApprovalRecord = {
      approvalId,
      ownerId: request.principal.id,
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
    const { created, record: stored } = await this.#runtime.records.create<ApprovalRecord>(
      keyOf(approvalId),
      record,
      this.#runtime.approvalTtlMs + RETENTION_MS,
    );
    if (!created && stored.value.fingerprint !== request.idempotent?.fingerprint)
      return { ok: false, mismatch: true };
    if (created) this.#scheduleExpiry(stored.value);
    return {
      ok: true,
      response: {
        status: 'approval_required',
        approval: {
          approvalId,
          reason: stored.value.reason,
          statusUrl: `${request.baseUrl}/v1/approvals/${encodeURIComponent(approvalId)}`,
          expiresAt: stored.value.expiresAt,
        },
      },
    };
  }

  /** The approval, if it exists (and, given `ownerId`, belongs to that principal). */
  async get(approvalId: string, ownerId?: string): Promise<Approval | undefined> {
    const stored = await this.#read(approvalId);
    if (!stored || (ownerId !== undefined && stored.value.ownerId !== ownerId)) return undefined;
    return this.#view(stored.value);
  }

  /** Approvals in the store, pending ones by default, oldest first. */
  async list(options: { status?: ApprovalStatus; limit?: number } = {}): Promise<Approval[]> {
    const status = options.status ?? 'pending';
    const limit = options.limit ?? 100;
    const entries = await this.#runtime.records.list<ApprovalRecord>('approval:', 10_000);
    const approvals: Approval[] = [];
    for (const entry of entries) {
      if (approvals.length >= limit) break;
      const current = await this.#expireIfDue(entry.record);
      if (current?.value.status === status) approvals.push(await this.#view(current.value));
    }
    return approvals;
  }

  /**
   * Decides a pending approval, once. Approved: the action runs as a job (input re-validated
   * first). Throws {@link ApprovalDecisionError} when there is nothing left to decide.
   */
  async decide(
    approvalId: string,
    decision: ApprovalDecision,
  ): Promise<{ approval: Approval; job?: Job }> {
    if (
      typeof decision?.approved !== 'boolean' ||
      typeof decision.decidedBy !== 'string' ||
      !decision.decidedBy
    ) {
      throw new TypeError('A decision needs approved (boolean) and decidedBy (non-empty string).');
    }
    const stored = await this.#read(approvalId);
    if (!stored) throw new ApprovalDecisionError('approval_not_found');
    if (stored.value.status === 'expired')
      throw new ApprovalDecisionError('approval_expired', 'expired');
    if (stored.value.status !== 'pending')
      throw new ApprovalDecisionError('approval_already_decided', stored.value.status);

    const action = this.#runtime.actionsById.get(stored.value.actionId);
    const jobId = decision.approved ? `job_${approvalId.replace(/^apr_/, '')}` : undefined;
    const decided: ApprovalRecord = {
      ...stored.value,
      status: decision.approved ? 'approved' : 'denied',
      decidedAt: new Date(this.#runtime.now()).toISOString(),
      decidedBy: decision.decidedBy,
      ...(decision.note !== undefined ? { note: decision.note } : {}),
      ...(jobId ? { jobId } : {}),
    };
    const written = await this.#runtime.records.replace(
      keyOf(approvalId),
      stored.version,
      decided,
      RETENTION_MS,
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

    let job: Job | undefined;
    if (jobId && action) {
      const payload: JobPayload = {
        invocation: decided.invocation,
        callbacks: decided.callbacks,
        input: decided.input,
        ...(decided.fingerprint ? { fingerprint: decided.fingerprint } : {}),
      };
      let created: StoredJob;
      try {
        ({ job: created } = await this.#runtime.jobs.create({
          jobId,
          ownerId: decided.ownerId,
          invocationId: decided.invocation.invocationId,
          actionId: action.id,
          actionName: action.name,
          status: 'queued',
          createdAt: new Date(this.#runtime.now()).toISOString(),
          ...(decided.invocation.deadlineAt !== undefined
            ? { deadlineAt: decided.invocation.deadlineAt }
            : {}),
          payload: payload as unknown as Record<string, unknown>,
        }));
      } catch (error) {
        // No job, no decision: put the approval back to pending so it can be decided again once
        // the job store recovers (the caller sees the store's error, e.g. a 503-worthy one).
        await this.#runtime.records
          .replace(
            keyOf(approvalId),
            written.version,
            stored.value,
            this.#runtime.approvalTtlMs + RETENTION_MS,
          )
          .catch(() => undefined);
        this.#scheduleExpiry(stored.value);
        throw error;
      }
      job = toJobResource(created);
      startJob(this.#runtime, created, action, decided.principal);
    }
    this.#notify(decided, job);
    return job
      ? { approval: await this.#view(decided), job }
      : { approval: await this.#view(decided) };
  }

  /** Stops expiry timers (the records stay in the store). */
  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #read(approvalId: string): Promise<VersionedRecord<ApprovalRecord> | undefined> {
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
      ...stored.value,
      status: 'expired',
      decidedAt: stored.value.expiresAt,
    };
    const written = await this.#runtime.records.replace(
      keyOf(stored.value.approvalId),
      stored.version,
      expired,
      RETENTION_MS,
    );
    this.#clearTimer(stored.value.approvalId);
    if (written) {
      this.#notify(expired, undefined);
      return written;
    }
    return this.#runtime.records.get<ApprovalRecord>(keyOf(stored.value.approvalId));
  }

  #scheduleExpiry(record: ApprovalRecord): void {
    const delay = Math.min(
      Math.max(0, Date.parse(record.expiresAt) - this.#runtime.now()),
      MAX_TIMER_MS,
    );
    const timer = setTimeout(() => {
      this.#timers.delete(record.approvalId);
      this.#runtime.background(
        this.#read(record.approvalId).catch((error: unknown) =>
          this.#runtime.logger.error('approval expiry failed', {
            approvalId: record.approvalId,
            error,
          }),
        ),
      );
    }, delay + 1);
    // Expiry must not keep a process alive on its own (feature-detected: not every runtime has unref).
    (timer as { unref?: () => void }).unref?.();
    this.#timers.set(record.approvalId, timer);
  }

  #clearTimer(approvalId: string): void {
    const timer = this.#timers.get(approvalId);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(approvalId);
  }

  #notify(record: ApprovalRecord, job: Job | undefined): void {
    const url = record.callbacks.approvalUrl;
    if (!url || !this.#runtime.callbacks || record.status === 'pending') return;
    const body: ApprovalCallbackBody = {
      approval: {
        approvalId: record.approvalId,
        status: record.status,
        decidedAt: record.decidedAt ?? new Date(this.#runtime.now()).toISOString(),
        ...(record.decidedBy !== undefined ? { decidedBy: record.decidedBy } : {}),
        ...(record.note !== undefined ? { note: record.note } : {}),
        ...(job
          ? {
              job: {
                jobId: job.jobId,
                status: job.status,
                statusUrl: jobUrls(record.baseUrl, job.jobId).statusUrl,
              },
            }
          : {}),
      },
    };
    void this.#runtime.callbacks.dispatch({
      url,
      body,
      webhookId: `approval_${record.approvalId}_${record.status}`,
      authorization: record.callbacks.authorization,
    });
  }

  async #view(record: ApprovalRecord): Promise<Approval> {
    let job: Approval['job'];
    if (record.jobId) {
      const stored = await this.#runtime.jobs.get(record.jobId);
      if (stored)
        job = {
          jobId: stored.jobId,
          status: stored.status,
          ...jobUrls(record.baseUrl, stored.jobId),
        };
    }
    return {
      approvalId: record.approvalId,
      status: record.status,
      reason: record.reason,
      actionId: record.actionId,
      actionName: record.actionName,
      input: record.input,
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
