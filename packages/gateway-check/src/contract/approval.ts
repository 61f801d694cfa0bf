import * as v from 'valibot';
import { DateTimeSchema } from './formats.ts';

/**
 * An approval's state as a gateway reports it. The contract names no approval route and leaves
 * approval states unsaid; `@svc/gateway-kit` serves `GET /v1/approvals/{approvalId}` → `{ approval }`
 * with `pending`, `approved`, `denied` and `expired`.
 *
 * @example
 * if (approval.status === 'approved') console.log('the job runs now');
 */
export interface Approval {
  /** The approval's id. */
  approvalId: string;
  /** The approval's state (`@svc/gateway-kit`: `pending`, `approved`, `denied` or `expired`). */
  status: string;
  /** Why approval is needed, when the gateway says. */
  reason?: string;
  /** When a pending approval expires (date-time), when the gateway says. */
  expiresAt?: string;
  [key: string]: unknown;
}

/**
 * Schema of the answer of an approval status route: `{ approval }`.
 *
 * @example
 * const { approval } = v.parse(LooseApprovalAnswerSchema, await response.json());
 */
export const LooseApprovalAnswerSchema: v.GenericSchema<{ approval: Approval }> =
  /* @__PURE__ */ v.looseObject({
    approval: v.looseObject({
      approvalId: v.string(),
      status: v.string(),
      reason: v.exactOptional(v.string()),
      expiresAt: v.exactOptional(DateTimeSchema),
    }),
  }) as v.GenericSchema<{ approval: Approval }>;
