import * as v from 'valibot';
import { type GatewayError, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';

/** The five job states of the contract. `completed`, `failed` and `cancelled` are terminal. */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * The job resource served by `GET /v1/jobs/{jobId}`. The contract does not say which fields are
 * required; this gateway always sends the identifying and timing fields, and the result fields
 * once they exist (see docs/decisions.md).
 *
 * @example
 * if (job.status === 'completed') console.log(job.outputText);
 */
export interface Job {
  /** The job's id. */
  jobId: string;
  /** `invocationId` of the request that created the job. */
  invocationId: string;
  /** The job's current status. */
  status: JobStatus;
  /** When the job was created (ISO 8601). */
  createdAt: string;
  /** When the job last changed (ISO 8601). */
  updatedAt: string;
  /** Id of the action the job runs. */
  actionId: string;
  /** Name of the action the job runs. */
  actionName: string;
  /** Text the assistant may say: the latest progress text, or the result's. */
  outputText?: string;
  /** A compact form for the model: the latest progress summary, or the result's. */
  machineSummary?: string;
  /** Version label of the shape of `data`, when the action completed with one. */
  dataSchemaVersion?: string;
  /** The result as a JSON object, when the action completed with one. */
  data?: Record<string, unknown>;
  /** Why the job failed; only for `failed`. */
  error?: GatewayError;
}

/**
 * The answer of `POST /v1/jobs/{jobId}/cancel`.
 *
 * @example
 * const { job } = (await response.json()) as CancelResponse;
 */
export interface CancelResponse {
  /** The job, now `cancelled`. */
  job: Job;
}

/**
 * Schema of a {@link JobStatus}.
 *
 * @example
 * v.is(JobStatusSchema, 'queued'); // true
 */
export const JobStatusSchema: v.GenericSchema<JobStatus> = v.picklist([
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
]);

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/**
 * Schema of a {@link Job}; unknown properties are rejected.
 *
 * @example
 * const job = v.parse(JobSchema, await response.json());
 */
export const JobSchema: v.GenericSchema<Job> = v.strictObject({
  jobId: v.string(),
  invocationId: v.string(),
  status: JobStatusSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  actionId: v.string(),
  actionName: v.string(),
  outputText: v.exactOptional(v.string()),
  machineSummary: v.exactOptional(v.string()),
  dataSchemaVersion: v.exactOptional(v.string()),
  data: v.exactOptional(JsonObjectSchema),
  error: v.exactOptional(GatewayErrorSchema),
});

/**
 * Schema of a {@link CancelResponse}: `{ job }` and nothing else.
 *
 * @example
 * v.parse(CancelResponseSchema, await response.json());
 */
export const CancelResponseSchema: v.GenericSchema<CancelResponse> = v.strictObject({
  job: JobSchema,
});
