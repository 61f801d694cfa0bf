import type { Job } from '../contract/job.ts';
import type { StoredJob } from '../store/job-store.ts';

/** The contract's job resource for a stored job: internal fields (owner, payload, version) stay inside. */
export function toJobResource(stored: StoredJob): Job {
  const job: Job = {
    jobId: stored.jobId,
    invocationId: stored.invocationId,
    status: stored.status,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    actionId: stored.actionId,
    actionName: stored.actionName,
  };
  if (stored.outputText !== undefined) job.outputText = stored.outputText;
  if (stored.machineSummary !== undefined) job.machineSummary = stored.machineSummary;
  if (stored.dataSchemaVersion !== undefined) job.dataSchemaVersion = stored.dataSchemaVersion;
  if (stored.data !== undefined) job.data = stored.data;
  if (stored.error !== undefined) job.error = stored.error;
  return job;
}
