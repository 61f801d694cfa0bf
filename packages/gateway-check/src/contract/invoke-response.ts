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
  /** The action ran and finished. */
  status: 'completed';
  /** Text the assistant may say. */
  outputText?: string;
  /** A compact form of the result, for the model. */
  machineSummary?: string;
  /** Version label of the shape of `data`. */
  dataSchemaVersion?: string;
  /** The result as a JSON object. */
  data?: Record<string, unknown>;
}

/**
 * `status: 'accepted'`: the action runs as a job, reported `queued` or `running`.
 *
 * @example
 * if (answer.status === 'accepted') console.log(answer.job.jobId);
 */
export interface AcceptedResponse {
  /** The action runs as a job. */
  status: 'accepted';
  /** The job the action runs as. */
  job: {
    /** The job's id. */
    jobId: string;
    /** The job's status when the answer was made. */
    status: 'queued' | 'running';
    /** URL of the job's status route, when the gateway sends one. */
    statusUrl?: string;
    /** URL of the job's cancel route, when the gateway sends one. */
    cancelUrl?: string;
  };
  /** Text the assistant may say. */
  outputText?: string;
  /** A compact form of the result, for the model. */
  machineSummary?: string;
}

/**
 * `status: 'approval_required'`: someone must approve before the action runs.
 *
 * @example
 * if (answer.status === 'approval_required') console.log(answer.approval.reason);
 */
export interface ApprovalRequiredResponse {
  /** The action waits for someone's approval. */
  status: 'approval_required';
  /** The approval the action waits for. */
  approval: {
    /** The approval's id. */
    approvalId: string;
    /** Why approval is needed. */
    reason: string;
    /** URL of the approval's status route, when the gateway sends one. */
    statusUrl?: string;
    /** When the approval expires (date-time), when the gateway says. */
    expiresAt?: string;
  };
  /** Text the assistant may say. */
  outputText?: string;
  /** A compact form of the result, for the model. */
  machineSummary?: string;
}

/**
 * `status: 'rejected'`: a business-level refusal.
 *
 * @example
 * if (answer.status === 'rejected') console.log(answer.error.code);
 */
export interface RejectedResponse {
  /** The action refused the request. */
  status: 'rejected';
  /** The refusal. */
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
