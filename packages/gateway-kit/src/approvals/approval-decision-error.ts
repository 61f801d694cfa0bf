import type { ApprovalDecisionErrorCode, ApprovalStatus } from '../contract/approval.ts';
import { GatewayKitError } from '../runtime/gateway-kit-error.ts';

/**
 * Thrown by `gateway.approvals.decide` when the approval cannot be decided: it does not exist,
 * was already decided (decisions are single-use), or expired.
 *
 * @example
 * try { await gateway.approvals.decide(id, decision); }
 * catch (error) { if (error instanceof ApprovalDecisionError && error.code === 'approval_expired') notify(); }
 */
export class ApprovalDecisionError extends GatewayKitError {
  /** Always `'ApprovalDecisionError'`. */
  override readonly name = 'ApprovalDecisionError';
  /** Why the decision was refused. */
  readonly code: ApprovalDecisionErrorCode;
  /** The approval's status when the decision was refused, if it exists. */
  readonly status: ApprovalStatus | undefined;

  constructor(code: ApprovalDecisionErrorCode, status?: ApprovalStatus) {
    super(
      code === 'approval_not_found'
        ? 'No such approval.'
        : code === 'approval_expired'
          ? 'The approval expired before it was decided.'
          : `The approval was already decided (${status}).`,
    );
    this.code = code;
    this.status = status;
  }
}
