import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CompletedResponse, GatewayError } from '@svc/gateway-kit/contract';

/** What a finished action produced: a `completed` invoke answer or a completed job. */
export type ActionOutput = Pick<
  CompletedResponse,
  'outputText' | 'machineSummary' | 'dataSchemaVersion' | 'data'
>;

/** Where a result came from: the invocation and, for async work, the job and approval ids. */
export interface ResultOrigin {
  readonly invocationId: string;
  readonly jobId?: string;
  readonly approvalId?: string;
}

const meta = (origin: ResultOrigin, extra: Record<string, unknown> = {}) => ({
  'svc/invoke': { ...origin, ...extra },
});

/**
 * `completed` (or a completed job) → a text block (`outputText`, else `machineSummary`, else the
 * data as JSON) and `structuredContent` = `data`.
 */
export function completedResult(output: ActionOutput, origin: ResultOrigin): CallToolResult {
  const text = output.outputText ?? output.machineSummary ?? JSON.stringify(output.data ?? {});
  return {
    content: [{ type: 'text', text }],
    ...(output.data !== undefined ? { structuredContent: output.data } : {}),
    _meta: meta(origin, {
      status: 'completed',
      ...(output.machineSummary !== undefined ? { machineSummary: output.machineSummary } : {}),
      ...(output.dataSchemaVersion !== undefined
        ? { dataSchemaVersion: output.dataSchemaVersion }
        : {}),
    }),
  };
}

/**
 * A gateway error (a `rejected` answer, an error envelope, a failed job) → a tool error result:
 * `isError`, a text naming the code, and `structuredContent.error` with the Gateway error as is.
 */
export function errorResult(
  error: GatewayError,
  origin: ResultOrigin,
  extra: { readonly httpStatus?: number; readonly retryAfterSeconds?: number } = {},
): CallToolResult {
  const lines = [`${error.code}: ${error.message}${error.retryable ? ' (retryable)' : ''}`];
  if (error.details !== undefined) lines.push(JSON.stringify(error.details));
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error, ...extra },
    _meta: meta(origin, { status: 'rejected' }),
  };
}

/** A job still queued or running when the wait ran out: its id and links, not an error. */
export function pendingJobResult(
  job: { readonly jobId: string; readonly status: string; readonly outputText?: string },
  links: { readonly statusUrl: string; readonly cancelUrl: string },
  origin: ResultOrigin,
): CallToolResult {
  const progress = job.outputText ? ` Last progress: ${job.outputText}` : '';
  return {
    content: [
      {
        type: 'text',
        text: `The job ${job.jobId} is still ${job.status}; follow it at ${links.statusUrl}.${progress}`,
      },
    ],
    structuredContent: {
      status: 'accepted',
      job: { jobId: job.jobId, status: job.status, ...links },
    },
    _meta: meta(origin, { status: 'accepted', jobId: job.jobId }),
  };
}

/** An approval no operator decided while the call waited: nothing ran; not an error. */
export function pendingApprovalResult(
  approval: {
    readonly approvalId: string;
    readonly reason: string;
    readonly statusUrl: string;
    readonly expiresAt?: string;
  },
  origin: ResultOrigin,
): CallToolResult {
  const until = approval.expiresAt ? ` It expires at ${approval.expiresAt}.` : '';
  return {
    content: [
      {
        type: 'text',
        text: `Waiting for an operator to approve (${approval.reason}); nothing has run yet. Approval ${approval.approvalId} is pending: follow it at ${approval.statusUrl}.${until}`,
      },
    ],
    structuredContent: { status: 'approval_required', approval: { ...approval } },
    _meta: meta(origin, { status: 'approval_required', approvalId: approval.approvalId }),
  };
}

/**
 * What a task keeps instead of a result too large for its session's budget of kept task results:
 * a tool error `result_too_large` naming the job that keeps the result (readable over the
 * contract at `jobPath`), with the ids of the original result.
 */
export function resultTooLargeResult(
  result: CallToolResult,
  bytes: number,
  maxBytes: number,
  jobPath: (jobId: string) => string,
): CallToolResult {
  const origin = (result._meta?.['svc/invoke'] ?? {}) as Partial<ResultOrigin>;
  const where = origin.jobId
    ? ` The job ${origin.jobId} keeps it: read it over the gateway contract at ${jobPath(origin.jobId)}.`
    : '';
  return errorResult(
    {
      code: 'result_too_large',
      message: `The task's result (${bytes} bytes) does not fit in the ${maxBytes} bytes of task results one MCP session keeps.${where}`,
      retryable: false,
      details: { maxBytes, ...(origin.jobId ? { jobId: origin.jobId } : {}) },
    },
    {
      invocationId: origin.invocationId ?? '',
      ...(origin.jobId ? { jobId: origin.jobId } : {}),
      ...(origin.approvalId ? { approvalId: origin.approvalId } : {}),
    },
  );
}
