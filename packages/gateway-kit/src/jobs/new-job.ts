import type { Action, Invocation } from '../actions/define-action.ts';
import type { JobPayload } from '../context/gateway-runtime.ts';
import type { InvokeRequest } from '../contract/invoke-request.ts';
import type { NewJob } from '../store/job-store.ts';
import { encodeJobRequest } from './job-request.ts';

/** What a job is made of: the same for an accepted async invoke and an approved action. */
export interface JobSource {
  readonly jobId: string;
  readonly ownerId: string;
  readonly action: Pick<Action, 'id' | 'name'>;
  readonly invocation: Invocation;
  readonly callbacks: InvokeRequest['callbacks'];
  /** The action input as received (re-validated before the run). */
  readonly input: Record<string, unknown>;
  /** Under an idempotency key: the request's fingerprint. */
  readonly fingerprint?: string | undefined;
  /** The approval whose approved action the job runs. */
  readonly approvalId?: string | undefined;
  /** The `heldBytes` quota units the job took (given back when it ends). */
  readonly heldUnits?: number | undefined;
  /**
   * The input and invocation as {@link encodeJobRequest} encodes them, when the caller has that
   * text already (it measured it for `heldBytes`): not encoded a second time.
   */
  readonly request?: string | undefined;
  /** Now, in epoch ms. */
  readonly now: number;
  /**
   * `running` for a job this instance starts at once (its lease taken with it, no `queued →
   * running` write to follow). Default `queued`.
   */
  readonly status?: 'queued' | 'running' | undefined;
}

/**
 * The one way a job is built: queued (or running, when it starts at once), owned by its principal, carrying what its run needs (the
 * caller's input and invocation, as text the store drops when the job ends) and what its callback
 * needs.
 *
 * @example
 * await runtime.jobs.create(createJob({ jobId, ownerId, action, invocation, callbacks, input, now }));
 */
export function createJob(source: JobSource): NewJob {
  const { traceId } = source.invocation;
  const payload: JobPayload = {
    callbacks: source.callbacks,
    ...(traceId !== undefined ? { traceId } : {}),
    ...(source.fingerprint !== undefined ? { fingerprint: source.fingerprint } : {}),
    ...(source.heldUnits !== undefined ? { heldUnits: source.heldUnits } : {}),
  };
  const { deadlineAt } = source.invocation;
  return {
    jobId: source.jobId,
    ownerId: source.ownerId,
    invocationId: source.invocation.invocationId,
    actionId: source.action.id,
    actionName: source.action.name,
    status: source.status ?? 'queued',
    createdAt: new Date(source.now).toISOString(),
    ...(source.approvalId !== undefined ? { approvalId: source.approvalId } : {}),
    ...(deadlineAt !== undefined ? { deadlineAt } : {}),
    payload: payload as unknown as Record<string, unknown>,
    request:
      source.request ?? encodeJobRequest({ input: source.input, invocation: source.invocation }),
  };
}
