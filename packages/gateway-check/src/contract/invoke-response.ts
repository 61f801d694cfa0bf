import * as v from 'valibot';
import { DateTimeSchema, UriSchema } from './formats.ts';
import { type GatewayError, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';

/**
 * `status: 'completed'`: the action ran synchronously.
 *
 * @example
 * if (answer.status === 'completed') console.log(answer.outputText);
 */
export interface CompletedResponse {
  status: 'completed';
  outputText?: string;
  machineSummary?: string;
  dataSchemaVersion?: string;
  data?: Record<string, unknown>;
}

/**
 * `status: 'accepted'`: the action runs as a job, reported `queued` or `running`.
 *
 * @example
 * if (answer.status === 'accepted') console.log(answer.job.jobId);
 */
export interface AcceptedResponse {
  status: 'accepted';
  job: { jobId: string; status: 'queued' | 'running'; statusUrl?: string; cancelUrl?: string };
  outputText?: string;
  machineSummary?: string;
}

/**
 * `status: 'approval_required'`: someone must approve before the action runs.
 *
 * @example
 * if (answer.status === 'approval_required') console.log(answer.approval.reason);
 */
export interface ApprovalRequiredResponse {
  status: 'approval_required';
  approval: { approvalId: string; reason: string; statusUrl?: string; expiresAt?: string };
  outputText?: string;
  machineSummary?: string;
}

/**
 * `status: 'rejected'`: a business-level refusal.
 *
 * @example
 * if (answer.status === 'rejected') console.log(answer.error.code);
 */
export interface RejectedResponse {
  status: 'rejected';
  error: GatewayError;
}

/**
 * The 200 answer of `POST /v1/invoke`: one of four shapes discriminated by `status`.
 *
 * @example
 * switch (answer.status) { case 'completed': break; }
 */
export type InvokeResponse =
  | CompletedResponse
  | AcceptedResponse
  | ApprovalRequiredResponse
  | RejectedResponse;

const narration = {
  outputText: v.exactOptional(v.string()),
  machineSummary: v.exactOptional(v.string()),
};

/**
 * Schema of an {@link InvokeResponse}; every shape rejects unknown properties, as the contract says.
 *
 * @example
 * const answer = v.parse(InvokeResponseSchema, await response.json());
 */
export const InvokeResponseSchema: v.GenericSchema<InvokeResponse> = /* @__PURE__ */ v.variant(
  'status',
  [
    v.strictObject({
      status: v.literal('completed'),
      ...narration,
      dataSchemaVersion: v.exactOptional(v.string()),
      data: v.exactOptional(JsonObjectSchema),
    }),
    v.strictObject({
      status: v.literal('accepted'),
      job: v.strictObject({
        jobId: v.string(),
        status: v.picklist(['queued', 'running']),
        statusUrl: v.exactOptional(UriSchema),
        cancelUrl: v.exactOptional(UriSchema),
      }),
      ...narration,
    }),
    v.strictObject({
      status: v.literal('approval_required'),
      approval: v.strictObject({
        approvalId: v.string(),
        reason: v.string(),
        statusUrl: v.exactOptional(UriSchema),
        expiresAt: v.exactOptional(DateTimeSchema),
      }),
      ...narration,
    }),
    v.strictObject({ status: v.literal('rejected'), error: GatewayErrorSchema }),
  ],
);
