import type { Principal } from '../auth/principal.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { CancelResponse } from '../contract/job.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { errorReply, jsonReply } from '../http/replies.ts';
import { couldBeIssued } from '../runtime/fingerprint.ts';
import type { StoredJob } from '../store/job-store.ts';
import { toJobResource } from './job-resource.ts';
import { notifyJobFinished } from './job-runner.ts';

/**
 * The caller's own job by id. Another principal's job is `undefined` exactly like a missing one
 * (ids reveal nothing); an id the gateway never handed out is not looked up at all: some stores
 * refuse odd keys with an error.
 */
async function ownJob(
  runtime: GatewayRuntime,
  jobId: string,
  principal: Principal,
): Promise<StoredJob | undefined> {
  if (!couldBeIssued('job', jobId)) return undefined;
  const job = await runtime.jobs.get(jobId);
  return job?.ownerId === principal.id ? job : undefined;
}

/** `GET /v1/jobs/{jobId}`: the job resource, visible only to the principal that created it. */
export async function handleGetJob(
  runtime: GatewayRuntime,
  jobId: string,
  principal: Principal,
): Promise<GatewayReply> {
  const job = await ownJob(runtime, jobId, principal);
  if (!job) return errorReply('job_not_found');
  return jsonReply(200, toJobResource(job));
}

/**
 * `POST /v1/jobs/{jobId}/cancel`: a queued or running job becomes `cancelled` at once (its action's
 * signal aborts); a finished job answers `409 job_not_cancellable` with its status.
 */
export async function handleCancelJob(
  runtime: GatewayRuntime,
  jobId: string,
  principal: Principal,
  call: GatewayCall,
): Promise<GatewayReply> {
  if (!(await ownJob(runtime, jobId, principal))) return errorReply('job_not_found');
  const cancelled = await runtime.jobs.requestCancel(jobId);
  if (cancelled.ok) {
    runtime.background(notifyJobFinished(runtime, cancelled.job), call.waitUntil);
    return jsonReply(200, { job: toJobResource(cancelled.job) } satisfies CancelResponse);
  }
  if (cancelled.reason === 'not_found') return errorReply('job_not_found');
  return errorReply('job_not_cancellable', {
    message: `The job has already finished (${cancelled.job?.status ?? 'unknown'}).`,
    details: { status: cancelled.job?.status },
  });
}
