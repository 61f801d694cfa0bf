import type { JobStatus } from '../contract/job.ts';

/** `pending` until decided; `approved`, `denied` and `expired` are final. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/**
 * An approval as the gateway shows it (`GET /v1/approvals/{approvalId}`, `gateway.approvals`).
 *
 * @example
 * if (approval.status === 'approved') console.log(approval.job?.statusUrl);
 */
export interface Approval {
  readonly approvalId: string;
  readonly status: ApprovalStatus;
  readonly reason: string;
  readonly actionId: string;
  readonly actionName: string;
  /** The validated action input awaiting the decision, for the operator to review. */
  readonly input: Record<string, unknown>;
  readonly invocationId: string;
  readonly meetingId: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly decidedAt?: string;
  readonly decidedBy?: string;
  readonly note?: string;
  /** The job that runs the action once approved. */
  readonly job?: {
    readonly jobId: string;
    readonly status: JobStatus;
    readonly statusUrl: string;
    readonly cancelUrl: string;
  };
}

/**
 * A decision on a pending approval.
 *
 * @example
 * await gateway.approvals.decide(approvalId, { approved: true, decidedBy: 'ops@acme.example' });
 */
export interface ApprovalDecision {
  readonly approved: boolean;
  /** Who decided (an operator id or e-mail), recorded and sent in the approval callback. */
  readonly decidedBy: string;
  readonly note?: string;
}
