import type { Action, Invocation, JobHandle } from '../actions/define-action.ts';
import { describeIssues, parseActionInput } from '../actions/validation-issues.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayRuntime, JobPayload } from '../context/gateway-runtime.ts';
import { gatewayError } from '../contract/error-catalogue.ts';
import { type Outcome, runAction } from '../execution/run-action.ts';
import { utf8Length } from '../http/json-size.ts';
import { releaseJobQuotas } from '../quotas/quotas.ts';
import { deadlineOf } from '../runtime/deadline.ts';
import { logWarning } from '../runtime/logger.ts';
import { isTerminal, type JobUpdate, type StoredJob } from '../store/job-store.ts';
import { isStoreUnavailableError } from '../store/store-errors.ts';
import { decodeJobRequest, type JobRequest } from './job-request.ts';
import { toJobResource } from './job-resource.ts';

// A finish write may race with progress writes of the same run; a few retries settle it.
const MAX_FINISH_ATTEMPTS = 5;

/**
 * How long past its action's `timeoutMs` a job still counts against its principal's budget if
 * nobody released it (an instance that died): time to be queued, started and finished.
 */
export const JOB_QUOTA_MARGIN_MS = 60_000;

/**
 * Runs a queued job in the background: `queued → running`, the action with an abort signal wired
 * to cancellation, deadline and timeout, then one terminal write. Every write is a compare-and-set,
 * so a cancellation that lands first is never overwritten by a late completion.
 */
export function startJob(
  runtime: GatewayRuntime,
  job: StoredJob,
  action: Action,
  principal: Principal,
  waitUntil?: (work: Promise<unknown>) => void,
  accepted?: AcceptedRun,
): void {
  const observer = runtime.observer;
  // A job created running because it starts at once was accepted as queued (the answer says so):
  // hooks and spans see the same queued → running → finished steps as for any job.
  if (observer)
    observer.jobQueued(accepted && job.status === 'running' ? { ...job, status: 'queued' } : job);
  // Closures keep the id only: the job record carries the caller's request.
  const { jobId } = job;
  const run = runJob(runtime, job, action, principal, accepted).catch((error: unknown) => {
    runtime.logger.error('job runner failed', { jobId, actionId: action.id, error });
    observer?.jobFailedHere(jobId);
  });
  runtime.background(observer ? run.finally(() => observer.jobLeft(jobId)) : run, waitUntil);
}

/**
 * Takes over a job an earlier instance left unfinished (`JobStore.onOrphaned`): a queued job is
 * started, a running one is run again if its action is idempotent (running it twice is safe) and
 * otherwise failed with `worker_lost`; either way its end is reported like any job's.
 */
export function resumeJob(runtime: GatewayRuntime, job: StoredJob): void {
  const action = runtime.actionsById.get(job.actionId);
  if (action && (job.status === 'queued' || (job.status === 'running' && action.idempotent))) {
    startJob(runtime, job, action, { id: job.ownerId });
    return;
  }
  if (isTerminal(job.status)) return;
  const lost = finishJob(runtime, job, {
    status: 'failed',
    error: {
      code: 'worker_lost',
      message: 'The gateway instance running this job stopped before it finished.',
      retryable: true,
    },
  }).catch((error: unknown) => {
    runtime.logger.error('orphaned job could not be failed', { jobId: job.jobId, error });
  });
  runtime.background(lost);
}

/**
 * A job's input as the invoke that accepted it validated it a moment ago, and its invocation: the
 * run starts from these instead of decoding and validating the stored request again.
 */
export interface AcceptedRun {
  readonly input: unknown;
  readonly invocation: Invocation;
}

async function runJob(
  runtime: GatewayRuntime,
  queued: StoredJob,
  action: Action,
  principal: Principal,
  accepted?: AcceptedRun,
): Promise<void> {
  const stored: JobRequest | undefined = accepted ? undefined : requestOf(queued);
  const invocation = accepted?.invocation ?? (stored as JobRequest).invocation;
  const { jobId } = queued;
  const deadline = deadlineOf(queued.deadlineAt);
  if (deadline <= runtime.now()) {
    await finishJob(runtime, queued, {
      status: 'failed',
      error: gatewayError('deadline_exceeded', {
        message: 'The deadline passed before the job started.',
      }),
    });
    return;
  }
  // Re-validate: an approved or resumed job runs long after its input was first checked.
  const input = accepted
    ? ({ success: true, output: accepted.input } as const)
    : await parseActionInput(action.input, (stored as JobRequest).input);
  if (!input.success) {
    await finishJob(runtime, queued, {
      status: 'failed',
      error: gatewayError('invalid_input', {
        details: describeIssues(input.issues, 'action.input'),
      }),
    });
    return;
  }
  // A running job here is an orphan run again (see resumeJob): it is running already.
  const started =
    queued.status === 'running'
      ? ({ ok: true, job: queued } as const)
      : await runtime.jobs.update(queued.jobId, queued.version, { status: 'running' });
  if (!started.ok) return; // cancelled (or failed) before it could start
  // From here on, no job record with the caller's request is held (a shared store returns a copy
  // of it with every write): `request` above is the run's only one.
  let current = lean(started.job);
  runtime.observer?.jobRunning(current);

  const cancel = new CancelWatch(runtime.jobs, jobId);
  let writes: Promise<void> = Promise.resolve();
  const handle: JobHandle = {
    jobId,
    progress: (update) => {
      const patch: { outputText?: string; machineSummary?: string } = {};
      if (typeof update.outputText === 'string') patch.outputText = update.outputText;
      if (typeof update.machineSummary === 'string') patch.machineSummary = update.machineSummary;
      const signal = cancel.signal;
      // Serialised so each write carries the version the previous one produced. Progress is a
      // courtesy: a write the store refuses is reported, never turned into the action's failure.
      writes = writes.then(async () => {
        if (signal.aborted) return;
        try {
          const written = await runtime.jobs.update(current.jobId, current.version, patch);
          if (written.ok) current = lean(written.job);
        } catch (error) {
          logWarning(runtime.logger, 'job progress not stored', { jobId: current.jobId, error });
        }
      });
      return writes;
    },
  };
  let update: JobUpdate;
  try {
    const outcome = await runAction({
      runtime,
      action,
      input: input.output,
      invocation,
      principal,
      budgetMs: Math.min(action.timeoutMs, deadline - runtime.now()),
      abortSource: cancel,
      job: handle,
      logIds: { jobId },
    });
    update = updateOf(runtime, action, current, outcome);
  } finally {
    cancel.stop();
  }
  await writes.catch(() => {});
  try {
    await finishJob(runtime, current, update);
  } catch (error) {
    // The store refused the result (e.g. a value it cannot hold): the job must not stay running.
    runtime.logger.error('job result could not be stored', { jobId: current.jobId, error });
    const latest = (await runtime.jobs.get(current.jobId)) ?? current;
    await finishJob(runtime, latest, {
      status: 'failed',
      error: gatewayError('internal_error', { retryable: action.idempotent }),
    });
  }
}

/**
 * A run's cancellation: a job's cancel reaches its run only through the run's signal (and stops its
 * progress writes), so the store is asked to watch the job from the first read of `signal` on. A
 * run that never looks costs the store no subscription, no read and no polling; a cancel that
 * landed before the first read is still delivered (`onCancel` tells late listeners).
 */
class CancelWatch {
  readonly #jobs: GatewayRuntime['jobs'];
  readonly #jobId: string;
  #controller: AbortController | undefined;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;

  constructor(jobs: GatewayRuntime['jobs'], jobId: string) {
    this.#jobs = jobs;
    this.#jobId = jobId;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      // Read after the run (a late progress call): nothing to watch any more.
      if (this.#stopped) return controller.signal;
      this.#unsubscribe = this.#jobs.onCancel(this.#jobId, () =>
        controller.abort(new DOMException('The job was cancelled.', 'AbortError')),
      );
    }
    return this.#controller.signal;
  }

  /** Ends the watch (the run is over). */
  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
  }
}

/** A job's terminal write for how its run ended (the one action runner's {@link Outcome}). */
function updateOf(
  runtime: GatewayRuntime,
  action: Action,
  job: StoredJob,
  outcome: Outcome,
): JobUpdate {
  switch (outcome.kind) {
    case 'rejected':
      return { status: 'failed', error: outcome.error };
    case 'timed_out':
      return { status: 'failed', error: gatewayError('deadline_exceeded') };
    // Cancelled: the job is already final, so this write is refused; nothing to report.
    case 'aborted':
      return { status: 'cancelled' };
    case 'crashed':
      return {
        status: 'failed',
        error: gatewayError('internal_error', { retryable: outcome.retryable }),
      };
    case 'completed':
      return completedUpdate(runtime, action, job, outcome.result);
  }
}

/** The completed write: the result as JSON, as any store keeps it, within `maxResultBytes`. */
function completedUpdate(
  runtime: GatewayRuntime,
  action: Action,
  job: StoredJob,
  result: Extract<Outcome, { kind: 'completed' }>['result'],
): JobUpdate {
  let json: string;
  try {
    // Functions and undefined values drop out here rather than failing the store's write, and
    // BigInts or cycles fail the job instead of stranding it.
    json = JSON.stringify(result);
  } catch (error) {
    runtime.logger.error('action failed', { actionId: action.id, jobId: job.jobId, error });
    return {
      status: 'failed',
      error: gatewayError('internal_error', { retryable: action.idempotent }),
    };
  }
  const maxBytes = runtime.limits.maxResultBytes;
  if (utf8Length(json) > maxBytes) {
    runtime.logger.error('job result too large to keep', {
      actionId: action.id,
      jobId: job.jobId,
      maxBytes,
    });
    return { status: 'failed', error: gatewayError('result_too_large', { details: { maxBytes } }) };
  }
  // Without `data` the result is strings only (a strict schema, checked): JSON gives it back as it
  // is, so it is not parsed again.
  if (result.data === undefined) return { status: 'completed', ...result };
  return { status: 'completed', ...(JSON.parse(json) as typeof result) };
}

/**
 * Writes a terminal state, retrying on version conflicts from concurrent progress writes, and
 * sends the job-result callback when this write is the one that finished the job.
 */
async function finishJob(
  runtime: GatewayRuntime,
  job: StoredJob,
  update: JobUpdate,
): Promise<StoredJob | undefined> {
  let expected = job;
  // Nothing a caller sent is kept past its use: the input and context leave with the result (the
  // store drops `request`; only a job stored by an earlier version carries them in its payload,
  // which is then rewritten: a current job's payload is already what a finished job keeps).
  if (update.status !== undefined && isTerminal(update.status) && keepsRequestIn(job.payload)) {
    update = { ...update, payload: finishedPayload(job) };
  }
  for (let attempt = 0; attempt < MAX_FINISH_ATTEMPTS; attempt++) {
    const written = await untilStored(runtime, () =>
      runtime.jobs.update(expected.jobId, expected.version, update),
    );
    if (written.ok) {
      // Awaited so that the job's background work (and a platform's waitUntil) covers delivery.
      await notifyJobFinished(runtime, written.job);
      return written.job;
    }
    if (written.reason !== 'conflict' || !written.job || isTerminal(written.job.status))
      return undefined;
    expected = written.job;
  }
  return undefined;
}

/**
 * What a finished job keeps of its payload: where to call back, its trace id and the idempotency
 * fingerprint (the store drops `request` itself).
 */
function finishedPayload(job: StoredJob): Record<string, unknown> {
  const payload = job.payload as unknown as JobPayload | undefined;
  return {
    callbacks: payload?.callbacks ?? {},
    ...(payload?.traceId !== undefined ? { traceId: payload.traceId } : {}),
    ...(payload?.fingerprint !== undefined ? { fingerprint: payload.fingerprint } : {}),
    ...(payload?.heldUnits !== undefined ? { heldUnits: payload.heldUnits } : {}),
  };
}

/** Whether a job's payload holds more than a finished job keeps (or is missing). */
function keepsRequestIn(stored: StoredJob['payload']): boolean {
  const payload = stored as unknown as JobPayload | undefined;
  return payload === undefined || payload.input !== undefined || payload.invocation !== undefined;
}

/** The job without the caller's request (what a running job's bookkeeping needs). */
function lean(job: StoredJob): StoredJob {
  if (job.request === undefined) return job;
  const { request: _request, ...rest } = job;
  return rest;
}

/** The caller's input and invocation of a queued job (a job stored by an earlier version: its payload). */
function requestOf(job: StoredJob): JobRequest {
  if (job.request !== undefined) return decodeJobRequest(job.request);
  const payload = job.payload as unknown as JobPayload | undefined;
  return { input: payload?.input ?? {}, invocation: payload?.invocation as Invocation };
}

/**
 * Runs a store write, retrying while the store is unreachable (backoff from 100 ms to 5 s) until it
 * answers or the gateway closes: a job whose result was computed must not be stranded by a short
 * outage. The job's lease is renewed meanwhile only as long as this process lives, so if it dies
 * the job still ends as `worker_lost`. Other errors are thrown at once.
 */
async function untilStored<T>(runtime: GatewayRuntime, write: () => Promise<T>): Promise<T> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await write();
    } catch (error) {
      if (!isStoreUnavailableError(error) || runtime.closing.aborted) throw error;
      logWarning(runtime.logger, 'job result not stored yet, retrying', { retryInMs: delay });
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          runtime.closing.removeEventListener('abort', stop);
          resolve();
        }, delay);
        runtime.closing.addEventListener('abort', stop, { once: true });
      });
    }
  }
}

/**
 * What follows a job's end, whichever way it ended: frees its principal's `activeJobs` budget and
 * sends `{ job }` to the job's `callbacks.jobResultUrl`, if it has one and callbacks are on;
 * settles when delivery succeeded or gave up (it never rejects).
 */
export async function notifyJobFinished(runtime: GatewayRuntime, job: StoredJob): Promise<void> {
  let acknowledging: Promise<void> | undefined;
  // Once the callback is stored in the outbox or started in process (not after its retries), a
  // shared store stops holding the job for another instance to report. A gateway closing meanwhile
  // never acknowledges: another instance sends the callback.
  const handedOver = (): void => {
    acknowledging ??= acknowledge(runtime, job.jobId);
  };
  await handOver(runtime, job, handedOver);
  await acknowledging;
}

async function acknowledge(runtime: GatewayRuntime, jobId: string): Promise<void> {
  try {
    await runtime.jobs.announced?.(jobId);
  } catch (error) {
    // Harmless: another instance reports the job again later, with the same webhook-id.
    logWarning(runtime.logger, 'job end not acknowledged to the store', { jobId, error });
  }
}

async function handOver(
  runtime: GatewayRuntime,
  job: StoredJob,
  handedOver: () => void,
): Promise<void> {
  // Every way a job ends comes through here: its principal's budgets are free again (both in one
  // call to the record store; a job store that keeps them gave them back in the terminal write).
  const payload = job.payload as unknown as JobPayload | undefined;
  const releasing = runtime.jobs.claimsJobQuotas
    ? undefined
    : releaseJobQuotas(runtime, job.ownerId, job.jobId, payload?.heldUnits ?? 0);
  const observer = runtime.observer;
  const url = payload?.callbacks.jobResultUrl;
  if (!url || !runtime.callbacks) {
    // Nothing to deliver: the job store may stop holding the job while the budgets are given back
    // (one round trip, not two). Should this instance die between the two, the budgets free
    // themselves when their time to live runs out, as after any release that fails.
    handedOver();
    await releasing;
    observer?.jobFinished(job);
    return;
  }
  await releasing;
  observer?.jobFinished(job);
  const delivery = {
    url,
    body: { job: toJobResource(job) },
    webhookId: `job_${job.jobId}_${job.status}`,
    authorization: payload.callbacks.authorization,
    principal: job.ownerId,
  };
  await (observer
    ? observer.dispatch(
        runtime.callbacks,
        delivery,
        {
          kind: 'job_result',
          jobId: job.jobId,
          invocationId: job.invocationId,
          actionId: job.actionId,
          principalId: job.ownerId,
        },
        handedOver,
      )
    : runtime.callbacks.dispatch(delivery, handedOver));
}
