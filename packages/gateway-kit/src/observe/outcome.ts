import type { GatewayReply } from '../http/gateway-call.ts';
import type { InvokeAnsweredEvent } from './hooks.ts';

type Outcome = Pick<InvokeAnsweredEvent, 'outcome' | 'errorCode' | 'jobId' | 'approvalId'>;

const COMPLETED = '{"status":"completed"';
const decoder = /* @__PURE__ */ new TextDecoder();

/**
 * What an invoke answer says: the contract status (or `error`), the error code, the job or the
 * approval. A `completed` answer (possibly large) is recognised by its first bytes; the others
 * are small and parsed.
 */
export function outcomeOf(reply: GatewayReply): Outcome {
  const text =
    typeof reply.body === 'string' ? reply.body : decoder.decode(reply.body ?? undefined);
  if (reply.status === 200 && text.startsWith(COMPLETED)) return { outcome: 'completed' };
  let body: {
    status?: unknown;
    error?: { code?: unknown };
    job?: { jobId?: unknown };
    approval?: { approvalId?: unknown };
  };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { outcome: 'error' };
  }
  const errorCode = typeof body?.error?.code === 'string' ? body.error.code : undefined;
  const code = errorCode === undefined ? {} : { errorCode };
  switch (body?.status) {
    case 'completed':
      return { outcome: 'completed' };
    case 'rejected':
      return { outcome: 'rejected', ...code };
    case 'accepted':
      return typeof body.job?.jobId === 'string'
        ? { outcome: 'accepted', jobId: body.job.jobId }
        : { outcome: 'accepted' };
    case 'approval_required':
      return typeof body.approval?.approvalId === 'string'
        ? { outcome: 'approval_required', approvalId: body.approval.approvalId }
        : { outcome: 'approval_required' };
    default:
      return { outcome: 'error', ...code };
  }
}
