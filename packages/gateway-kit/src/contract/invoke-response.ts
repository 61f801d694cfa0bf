import * as v from 'valibot';
import { type GatewayError, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';

/** Text fields any non-rejected invoke answer may carry. */
interface Narration {
  outputText?: string;
  machineSummary?: string;
}

/**
 * `status: 'completed'` — the action ran synchronously.
 *
 * @example
 * const answer: CompletedResponse = { status: 'completed', outputText: 'Account is active.' };
 */
export interface CompletedResponse extends Narration {
  status: 'completed';
  dataSchemaVersion?: string;
  data?: Record<string, unknown>;
}

/**
 * `status: 'accepted'` — the action continues as an asynchronous job.
 *
 * @example
 * const answer: AcceptedResponse = { status: 'accepted', job: { jobId: 'job_1', status: 'queued' } };
 */
export interface AcceptedResponse extends Narration {
  status: 'accepted';
  job: { jobId: string; status: 'queued' | 'running'; statusUrl?: string; cancelUrl?: string };
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
  status: 'approval_required';
  approval: { approvalId: string; reason: string; statusUrl?: string; expiresAt?: string };
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
  status: 'rejected';
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
