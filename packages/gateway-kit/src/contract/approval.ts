import type { JobStatus } from './job.ts';

/** `pending` until decided; `approved`, `denied` and `expired` are final. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/**
 * An approval as the gateway shows it (`GET /v1/approvals/{approvalId}`, `gateway.approvals`).
 *
 * @example
 * if (approval.status === 'approved') console.log(approval.job?.statusUrl);
 */
export interface Approval {
  /** The approval's id (`apr_…`), as in its `statusUrl`. */
  readonly approvalId: string;
  /** `pending` until decided or expired. */
  readonly status: ApprovalStatus;
  /** Why approval is needed: the policy's string, or the default naming the action's title. */
  readonly reason: string;
  /** Id of the action awaiting approval. */
  readonly actionId: string;
  /** Name of the action awaiting approval. */
  readonly actionName: string;
  /**
   * The validated action input awaiting the decision, for the operator to review. Only while the
   * approval is `pending`: once decided or expired the gateway keeps nothing the caller sent (an
   * approved action's job carries its own copy until it ends).
   */
  readonly input?: Record<string, unknown>;
  /** `invocationId` of the request that asked for approval. */
  readonly invocationId: string;
  /** `meeting.id` of the request that asked for approval. */
  readonly meetingId: string;
  /** When the approval was requested (ISO 8601). */
  readonly createdAt: string;
  /** When a pending approval expires (ISO 8601): `createdAt` plus `approvals.ttlMs`. */
  readonly expiresAt: string;
  /** When it was decided (ISO 8601); `expiresAt` for an expired approval; absent while pending. */
  readonly decidedAt?: string;
  /** The decision's `decidedBy`; absent while pending and for an expired approval. */
  readonly decidedBy?: string;
  /** The decision's note, when it had one. */
  readonly note?: string;
  /** The job that runs the action once approved. */
  readonly job?: ApprovalJob;
}

/**
 * The job an approved action runs as, with its links (as in `GET /v1/approvals/{approvalId}`).
 *
 * @example
 * const { job } = await gateway.approvals.decide(approvalId, { approved: true, decidedBy: 'ops' });
 * if (job) console.log(job.jobId, job.status, job.statusUrl);
 */
export interface ApprovalJob {
  /** The job's id (`job_…`). */
  readonly jobId: string;
  /** The job's status when this was read. */
  readonly status: JobStatus;
  /** Absolute URL of `GET /v1/jobs/{jobId}`. */
  readonly statusUrl: string;
  /** Absolute URL of `POST /v1/jobs/{jobId}/cancel`. */
  readonly cancelUrl: string;
}

/**
 * One page of `gateway.approvals.list()`: the approvals (an array), and the cursor of the next
 * page when there may be one.
 *
 * @example
 * let page = await gateway.approvals.list({ status: 'pending', limit: 50 });
 * while (page.nextCursor) page = await gateway.approvals.list({ cursor: page.nextCursor });
 */
export type ApprovalPage = Approval[] & {
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
};

/**
 * What `gateway.approvals.list()` accepts.
 *
 * @example
 * const options: ApprovalListOptions = { status: 'expired', limit: 20 };
 */
export interface ApprovalListOptions {
  /** Which approvals; default `pending`. */
  readonly status?: ApprovalStatus;
  /** Most approvals in the page: 1 to 500, default 100. */
  readonly limit?: number;
  /** `nextCursor` of the previous page (of the same status). */
  readonly cursor?: string;
}

/**
 * A decision on a pending approval.
 *
 * @example
 * await gateway.approvals.decide(approvalId, { approved: true, decidedBy: 'ops@acme.example' });
 */
export interface ApprovalDecision {
  /** `true` approves (the action runs as a job); `false` denies. */
  readonly approved: boolean;
  /** Who decided (an operator id or e-mail), recorded and sent in the approval callback. */
  readonly decidedBy: string;
  /** Free text kept with the decision and shown on the approval. */
  readonly note?: string;
}

/**
 * Why a decision was refused: the error codes of the approvals API (`404`/`409` envelopes) and the
 * `code` of `ApprovalDecisionError`.
 *
 * @example
 * const why: Record<ApprovalDecisionErrorCode, string> = {
 *   approval_not_found: 'no such approval',
 *   approval_already_decided: 'already decided',
 *   approval_expired: 'expired',
 * };
 */
export type ApprovalDecisionErrorCode =
  | 'approval_not_found'
  | 'approval_already_decided'
  | 'approval_expired';
