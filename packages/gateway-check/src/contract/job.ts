import * as v from 'valibot';
import { DateTimeSchema } from './formats.ts';
import { type GatewayError, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';

/**
 * The five job states of the contract; `completed`, `failed` and `cancelled` are final.
 *
 * @example
 * const done = (status: JobStatus) => status !== 'queued' && status !== 'running';
 */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * The job resource. The contract does not say which fields are required; a job without `jobId`
 * and `status` cannot be followed, so those two are, and every other listed field is typed.
 *
 * @example
 * if (job.status === 'completed') console.log(job.outputText);
 */
export interface Job {
  /** The job's id. */
  jobId: string;
  /** The job's current status. */
  status: JobStatus;
  /** `invocationId` of the request that created the job. */
  invocationId?: string;
  /** When the job was created (date-time). */
  createdAt?: string;
  /** When the job last changed (date-time). */
  updatedAt?: string;
  /** Id of the action the job runs. */
  actionId?: string;
  /** Name of the action the job runs. */
  actionName?: string;
  /** Text the assistant may say. */
  outputText?: string;
  /** A compact form of the result, for the model. */
  machineSummary?: string;
  /** Version label of the shape of `data`. */
  dataSchemaVersion?: string;
  /** The result as a JSON object. */
  data?: Record<string, unknown>;
  /** Why the job failed. */
  error?: GatewayError;
}

/**
 * Schema of a {@link JobStatus}.
 *
 * @example
 * v.is(JobStatusSchema, 'queued'); // true
 */
export const JobStatusSchema: v.GenericSchema<JobStatus> = /* @__PURE__ */ v.picklist([
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
]);

/**
 * Schema of a {@link Job}.
 *
 * @example
 * const job = v.parse(LooseJobSchema, await response.json());
 */
export const LooseJobSchema: v.GenericSchema<Job> = /* @__PURE__ */ v.looseObject({
  jobId: v.string(),
  status: JobStatusSchema,
  invocationId: v.exactOptional(v.string()),
  createdAt: v.exactOptional(DateTimeSchema),
  updatedAt: v.exactOptional(DateTimeSchema),
  actionId: v.exactOptional(v.string()),
  actionName: v.exactOptional(v.string()),
  outputText: v.exactOptional(v.string()),
  machineSummary: v.exactOptional(v.string()),
  dataSchemaVersion: v.exactOptional(v.string()),
  data: v.exactOptional(JsonObjectSchema),
  error: v.exactOptional(GatewayErrorSchema),
}) as v.GenericSchema<Job>;

/**
 * Schema of the cancel answer: an object with one property, `job`.
 *
 * @example
 * const { job } = v.parse(CancelResponseSchema, await response.json());
 */
export const CancelResponseSchema: v.GenericSchema<{
  /** The job after the cancel. */
  job: Job;
}> = /* @__PURE__ */ v.strictObject({
  job: LooseJobSchema,
});
