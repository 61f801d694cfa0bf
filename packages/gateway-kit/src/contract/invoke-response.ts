import * as v from 'valibot';
import { type GatewayError, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';

/** Text fields any non-rejected invoke answer may carry. */
interface Narration {
  /** Text the assistant may say. */
  outputText?: string;
  /** A compact form of the result, for the model. */
  machineSummary?: string;
}

/**
 * `status: 'completed'` — the action ran synchronously.
 *
 * @example
 * const answer: CompletedResponse = { status: 'completed', outputText: 'Account is active.' };
 */
export interface CompletedResponse extends Narration {
  /** The action ran and finished. */
  status: 'completed';
  /** Version label of the shape of `data`. */
  dataSchemaVersion?: string;
  /** The result as a JSON object. */
  data?: Record<string, unknown>;
}

/**
 * `status: 'accepted'` — the action continues as an asynchronous job.
 *
 * @example
 * const answer: AcceptedResponse = { status: 'accepted', job: { jobId: 'job_1', status: 'queued' } };
 */
export interface AcceptedResponse extends Narration {
  /** The action runs as a job. */
  status: 'accepted';
  /** The job the action runs as. */
  job: {
    /** The job's id. */
    jobId: string;
    /** The job's status when the answer was made (this gateway: always `queued`). */
    status: 'queued' | 'running';
    /** Absolute URL of `GET /v1/jobs/{jobId}` (this gateway always sends it). */
    statusUrl?: string;
    /** Absolute URL of `POST /v1/jobs/{jobId}/cancel` (this gateway always sends it). */
    cancelUrl?: string;
  };
}

/**
 * `status: 'approval_required'` — a human must approve before the action runs.
 *
 * @example
 * const answer: ApprovalRequiredResponse = {
 *   status: 'approval_required',
 *   approval: { approvalId: 'apr_1', reason: 'Refunds need approval.' },
 * };
 */
export interface ApprovalRequiredResponse extends Narration {
  /** The action waits for an operator's approval. */
  status: 'approval_required';
  /** The approval the action waits for. */
  approval: {
    /** The approval's id. */
    approvalId: string;
    /** Why approval is needed. */
    reason: string;
    /** Absolute URL of `GET /v1/approvals/{approvalId}` (this gateway always sends it). */
    statusUrl?: string;
    /** When the approval expires if nobody decides (ISO 8601; this gateway always sends it). */
    expiresAt?: string;
  };
}

/**
 * `status: 'rejected'` — a business-level refusal, answered with HTTP 200.
 *
 * @example
 * const answer: RejectedResponse = {
 *   status: 'rejected',
 *   error: { code: 'limit_exceeded', message: 'Too large.', retryable: false },
 * };
 */
export interface RejectedResponse {
  /** The action refused the request. */
  status: 'rejected';
  /** The refusal. */
  error: GatewayError;
}

/**
 * Any of the four 200 answers of `POST /v1/invoke`, discriminated by `status`.
 *
 * @example
 * if (answer.status === 'accepted') poll(answer.job.statusUrl);
 */
export type InvokeResponse =
  | CompletedResponse
  | AcceptedResponse
  | ApprovalRequiredResponse
  | RejectedResponse;

const OptionalText = v.exactOptional(v.string());
const OptionalUrl = v.exactOptional(v.pipe(v.string(), v.url()));

/**
 * Schema of a {@link CompletedResponse}; unknown properties are rejected.
 *
 * @example
 * v.is(CompletedResponseSchema, { status: 'completed' }); // true
 */
export const CompletedResponseSchema: v.GenericSchema<CompletedResponse> = v.strictObject({
  status: v.literal('completed'),
  outputText: OptionalText,
  machineSummary: OptionalText,
  dataSchemaVersion: OptionalText,
  data: v.exactOptional(JsonObjectSchema),
});

/**
 * Schema of an {@link AcceptedResponse}; unknown properties are rejected.
 *
 * @example
 * v.is(AcceptedResponseSchema, { status: 'accepted', job: { jobId: 'j', status: 'queued' } }); // true
 */
export const AcceptedResponseSchema: v.GenericSchema<AcceptedResponse> = v.strictObject({
  status: v.literal('accepted'),
  outputText: OptionalText,
  machineSummary: OptionalText,
  job: v.strictObject({
    jobId: v.string(),
    status: v.picklist(['queued', 'running']),
    statusUrl: OptionalUrl,
    cancelUrl: OptionalUrl,
  }),
});

/**
 * Schema of an {@link ApprovalRequiredResponse}; unknown properties are rejected.
 *
 * @example
 * v.is(ApprovalRequiredResponseSchema, answer);
 */
export const ApprovalRequiredResponseSchema: v.GenericSchema<ApprovalRequiredResponse> =
  v.strictObject({
    status: v.literal('approval_required'),
    outputText: OptionalText,
    machineSummary: OptionalText,
    approval: v.strictObject({
      approvalId: v.string(),
      reason: v.string(),
      statusUrl: OptionalUrl,
      expiresAt: v.exactOptional(v.pipe(v.string(), v.isoTimestamp())),
    }),
  });

/**
 * Schema of a {@link RejectedResponse}; unknown properties are rejected.
 *
 * @example
 * v.is(RejectedResponseSchema, { status: 'rejected', error: { code: 'x', message: 'y', retryable: false } });
 */
export const RejectedResponseSchema: v.GenericSchema<RejectedResponse> = v.strictObject({
  status: v.literal('rejected'),
  error: GatewayErrorSchema,
});

/**
 * Schema of any {@link InvokeResponse}: use it to check a gateway's answers.
 *
 * @example
 * const result = v.safeParse(InvokeResponseSchema, await response.json());
 */
export const InvokeResponseSchema: v.GenericSchema<InvokeResponse> = v.union([
  CompletedResponseSchema,
  AcceptedResponseSchema,
  ApprovalRequiredResponseSchema,
  RejectedResponseSchema,
]);
