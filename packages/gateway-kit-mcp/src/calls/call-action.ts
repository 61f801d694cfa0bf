import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Approval, Gateway } from '@svc/gateway-kit';
import type {
  AcceptedResponse,
  ApprovalRequiredResponse,
  GatewayError,
  InvokeResponse,
  Job,
} from '@svc/gateway-kit/contract';
import type { CallSettings } from '../options.ts';
import { type Caller, type GatewayAnswer, gatewayRequest } from './gateway-request.ts';
import { pause } from './pause.ts';
import {
  completedResult,
  errorResult,
  pendingApprovalResult,
  pendingJobResult,
  type ResultOrigin,
} from './tool-results.ts';

/** What a call reports to its MCP client as `notifications/message` (`data` is sent as is). */
export type CallLog = (level: LoggingLevel, data: Readonly<Record<string, unknown>>) => void;

/** One MCP `tools/call`, as the handler hands it over. */
export interface ActionCall {
  readonly actionId: string;
  readonly input: Record<string, unknown>;
  readonly caller: Caller;
  /** The MCP session (`mcp-stdio` on stdio): the invoke request's `session.id`. */
  readonly sessionId: string;
  /** `_meta["svc/idempotencyKey"]` of the call: the invoke's `idempotencyKey`. */
  readonly idempotencyKey?: string;
  /** Free-form `context` of the invoke request (the MCP client's name and version). */
  readonly context: Record<string, unknown>;
  /** Aborts when the MCP client cancels the call (or the connection closes). */
  readonly signal: AbortSignal;
  /** Reports job progress (`outputText` of the job) while the call waits. */
  readonly onProgress?: (message: string) => void;
  /** Reports what happens to the call (progress, refusals, waits): never its input. */
  readonly log?: CallLog;
}

/** The links of a job: from an `accepted` answer, or from an approved approval. */
type JobLinks = Pick<AcceptedResponse['job'], 'jobId' | 'statusUrl' | 'cancelUrl'>;

/** The Gateway error of a non-200 answer (its envelope), or one describing the status. */
function answerError(answer: GatewayAnswer): GatewayError {
  const error = (answer.body as { error?: GatewayError } | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') return error;
  return {
    code: 'gateway_error',
    message: `The gateway answered HTTP ${answer.status}.`,
    retryable: answer.status >= 500,
  };
}

/**
 * A non-200 answer as a tool error, keeping the HTTP status and `Retry-After` (429, 503); logged
 * to the caller as a warning (a quota reached, an outage: the caller's to act on).
 */
function answerErrorResult(
  answer: GatewayAnswer,
  origin: ResultOrigin,
  call: ActionCall,
): CallToolResult {
  const retryAfter = Number(answer.headers.get('retry-after'));
  const error = answerError(answer);
  call.log?.(answer.status >= 500 ? 'error' : 'warning', {
    event: 'gateway_refused',
    actionId: call.actionId,
    ...origin,
    httpStatus: answer.status,
    code: error.code,
    message: error.message,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
  });
  return errorResult(error, origin, {
    httpStatus: answer.status,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
  });
}

const cancelledError: GatewayError = {
  code: 'cancelled',
  message: 'The MCP client cancelled the call.',
  retryable: false,
};

/**
 * Runs one tool call through the gateway's own `POST /v1/invoke` (so authentication, validation,
 * limits, quotas, approvals and hooks are the gateway's), then maps the answer to a tool result;
 * an async job or an approval is followed for up to `settings.waitMs`.
 */
export async function callAction(
  gateway: Gateway,
  settings: CallSettings,
  call: ActionCall,
): Promise<CallToolResult> {
  const until = Date.now() + settings.waitMs;
  const invocationId = `mcp_${crypto.randomUUID()}`;
  const origin: ResultOrigin = { invocationId };
  const invoke = {
    invocationId,
    ...(call.idempotencyKey !== undefined ? { idempotencyKey: call.idempotencyKey } : {}),
    meeting: { id: 'mcp', roomName: 'mcp' },
    session: { id: call.sessionId, mode: 'active' },
    action: { id: call.actionId, input: call.input },
    context: call.context,
    callbacks: {},
  };
  const answer = await gatewayRequest(gateway, call.caller, `${settings.basePath}/v1/invoke`, {
    method: 'POST',
    body: invoke,
    signal: call.signal,
  });
  if (answer.status !== 200) return answerErrorResult(answer, origin, call);
  const body = answer.body as InvokeResponse;
  switch (body.status) {
    case 'completed':
      return completedResult(body, origin);
    case 'rejected':
      return errorResult(body.error, origin);
    case 'accepted':
      call.log?.('info', {
        event: 'job_accepted',
        actionId: call.actionId,
        invocationId,
        jobId: body.job.jobId,
      });
      return followJob(gateway, settings, call, body.job, until, origin);
    case 'approval_required':
      call.log?.('notice', {
        event: 'approval_required',
        actionId: call.actionId,
        invocationId,
        approvalId: body.approval.approvalId,
        message: 'Waiting for an operator to decide the approval.',
      });
      return followApproval(gateway, settings, call, body.approval, until, origin);
  }
}

/** Reads the job until it is final, the wait runs out, or the client cancels (→ job cancelled). */
async function followJob(
  gateway: Gateway,
  settings: CallSettings,
  call: ActionCall,
  links: JobLinks,
  until: number,
  parent: ResultOrigin,
): Promise<CallToolResult> {
  const origin = { ...parent, jobId: links.jobId };
  const path = `${settings.basePath}/v1/jobs/${encodeURIComponent(links.jobId)}`;
  const urls = {
    statusUrl: links.statusUrl ?? new URL(path, call.caller.origin).href,
    cancelUrl: links.cancelUrl ?? new URL(`${path}/cancel`, call.caller.origin).href,
  };
  let interval = Math.min(50, settings.pollIntervalMs);
  let lastProgress: string | undefined;
  for (;;) {
    if (call.signal.aborted) {
      // The client gave up on the call: the job must not keep running for nobody.
      await gatewayRequest(gateway, call.caller, `${path}/cancel`, { method: 'POST' });
      call.log?.('info', { event: 'job_cancelled', actionId: call.actionId, ...origin });
      return errorResult(cancelledError, origin);
    }
    const answer = await gatewayRequest(gateway, call.caller, path, { method: 'GET' });
    if (answer.status !== 200) return answerErrorResult(answer, origin, call);
    const job = answer.body as Job;
    if (job.outputText !== undefined && job.outputText !== lastProgress) {
      lastProgress = job.outputText;
      if (job.status === 'queued' || job.status === 'running') {
        call.onProgress?.(job.outputText);
        call.log?.('info', {
          event: 'job_progress',
          actionId: call.actionId,
          ...origin,
          status: job.status,
          message: job.outputText,
        });
      }
    }
    if (job.status === 'completed') return completedResult(job, origin);
    if (job.status === 'failed') {
      return errorResult(
        job.error ?? { code: 'job_failed', message: 'The job failed.', retryable: false },
        origin,
      );
    }
    if (job.status === 'cancelled') {
      return errorResult(
        { code: 'job_cancelled', message: `The job ${job.jobId} was cancelled.`, retryable: false },
        origin,
      );
    }
    const remaining = until - Date.now();
    if (remaining <= 0) {
      call.log?.('notice', {
        event: 'job_still_running',
        actionId: call.actionId,
        ...origin,
        message: `The job ${job.jobId} is still ${job.status}; follow it at its statusUrl.`,
      });
      return pendingJobResult(job, urls, origin);
    }
    await pause(Math.min(interval, remaining), call.signal);
    interval = Math.min(interval * 2, settings.pollIntervalMs);
  }
}

/**
 * Waits for an operator's decision on the approval (never decides it): approved → follows the job
 * it started; denied or expired → a tool error; still pending when the wait runs out (or the
 * client cancels) → a result naming the pending approval. Nothing runs without the decision.
 */
async function followApproval(
  gateway: Gateway,
  settings: CallSettings,
  call: ActionCall,
  requested: ApprovalRequiredResponse['approval'],
  until: number,
  parent: ResultOrigin,
): Promise<CallToolResult> {
  const origin = { ...parent, approvalId: requested.approvalId };
  const path = `${settings.basePath}/v1/approvals/${encodeURIComponent(requested.approvalId)}`;
  const pending = {
    ...requested,
    statusUrl: requested.statusUrl ?? new URL(path, call.caller.origin).href,
  };
  let interval = Math.min(50, settings.pollIntervalMs);
  for (;;) {
    const remaining = until - Date.now();
    if (remaining <= 0 || call.signal.aborted) return pendingApprovalResult(pending, origin);
    await pause(Math.min(interval, remaining), call.signal);
    interval = Math.min(interval * 2, settings.pollIntervalMs);
    const answer = await gatewayRequest(gateway, call.caller, path, { method: 'GET' });
    if (answer.status !== 200) return answerErrorResult(answer, origin, call);
    const approval = (answer.body as { approval: Approval }).approval;
    if (approval.status === 'approved' && approval.job) {
      return followJob(gateway, settings, call, approval.job, until, origin);
    }
    if (approval.status === 'denied' || approval.status === 'expired') {
      const note = approval.note ? ` Note: ${approval.note}` : '';
      return errorResult(
        {
          code: `approval_${approval.status}`,
          message:
            approval.status === 'denied'
              ? `An operator denied the approval ${approval.approvalId}; nothing ran.${note}`
              : `No operator decided the approval ${approval.approvalId} in time; nothing ran.`,
          retryable: false,
        },
        origin,
      );
    }
  }
}
