import type { Job, JobStatus } from '../contract/job.ts';

/**
 * Body of the job-result callback POSTed to `callbacks.jobResultUrl` when an async job reaches a
 * terminal state: the same job resource `GET /v1/jobs/{jobId}` serves (the contract leaves the
 * payload open; this is our decision, see docs/callbacks.md).
 *
 * @example
 * const body: JobResultCallbackBody = { job };
 */
export interface JobResultCallbackBody {
  /** The finished job, as `GET /v1/jobs/{jobId}` serves it. */
  readonly job: Job;
}

/**
 * Outcome of an approval: `approved` and `denied` are decisions, `expired` means nobody decided
 * before `expiresAt`.
 *
 * @example
 * const status: ApprovalDecisionStatus = 'approved';
 */
export type ApprovalDecisionStatus = 'approved' | 'denied' | 'expired';

/**
 * Body of the approval callback POSTed to `callbacks.approvalUrl` once an approval is decided or
 * expires (our proposal; the contract does not show it). `job` is present when approving started
 * an async job.
 *
 * @example
 * const body: ApprovalCallbackBody = {
 *   approval: {
 *     approvalId: 'apr_1',
 *     status: 'approved',
 *     decidedAt: '2026-01-01T10:00:00.000Z',
 *     decidedBy: 'jane@example.com',
 *     job: { jobId: 'job_1', status: 'queued', statusUrl: 'https://gw.example.com/v1/jobs/job_1' },
 *   },
 * };
 */
export interface ApprovalCallbackBody {
  /** The approval's outcome. */
  readonly approval: {
    /** The approval's id. */
    readonly approvalId: string;
    /** How the approval ended. */
    readonly status: ApprovalDecisionStatus;
    /** RFC 3339 date-time of the decision (or of the expiry). */
    readonly decidedAt: string;
    /** Who decided; absent for `expired`. */
    readonly decidedBy?: string;
    /** Free-text note of the decider. */
    readonly note?: string;
    /** The job approving started; absent when denied or expired. */
    readonly job?: {
      /** The job's id. */
      readonly jobId: string;
      /** The job's status when the callback was built. */
      readonly status: JobStatus;
      /** Absolute URL of `GET /v1/jobs/{jobId}`. */
      readonly statusUrl?: string;
    };
  };
}
