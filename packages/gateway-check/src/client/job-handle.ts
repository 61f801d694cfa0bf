import type { Job } from '../contract/job.ts';
import { MAX_TIMER_MS, refuseOption } from '../errors/check-options-error.ts';
import { GatewayClientError } from '../errors/gateway-client-error.ts';

/**
 * Options of {@link JobHandle.wait}.
 *
 * @example
 * await handle.wait({ pollIntervalMs: 250, signal: AbortSignal.timeout(60_000) });
 */
export interface WaitOptions {
  /** Stops waiting (the promise rejects with an `aborted` error); the job itself goes on. */
  readonly signal?: AbortSignal;
  /**
   * Pause between two polls, from 0 to 2 147 483 647 ms (below 10, 10). Default 500 ms.
   */
  readonly pollIntervalMs?: number;
  /**
   * Give up (a `timeout` error) after this long, from 0 to 2 147 483 647 ms. Default: wait until
   * `signal` aborts.
   */
  readonly timeoutMs?: number;
}

/**
 * An async job accepted by a gateway.
 *
 * @example
 * const job = await handle.wait({ pollIntervalMs: 250 });
 * if (job.status === 'completed') console.log(job.outputText);
 */
export interface JobHandle {
  /** The job's id. */
  readonly jobId: string;
  /** The job's current state (`GET /v1/jobs/{jobId}`). */
  get(options?: { signal?: AbortSignal }): Promise<Job>;
  /** Polls until the job is `completed`, `failed` or `cancelled`, and returns it. */
  wait(options?: WaitOptions): Promise<Job>;
  /** Asks the gateway to cancel the job (`POST /v1/jobs/{jobId}/cancel`); returns the job it answers. */
  cancel(options?: { signal?: AbortSignal }): Promise<Job>;
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Whether a job status is final (`completed`, `failed`, `cancelled`).
 *
 * @example
 * isFinalJobStatus('running'); // false
 */
export const isFinalJobStatus = (status: string): boolean => FINAL.has(status);

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(
        new GatewayClientError({ kind: 'aborted', message: 'waiting for the job was aborted' }),
      );
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(
        new GatewayClientError({ kind: 'aborted', message: 'waiting for the job was aborted' }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Polls `get` until the job is final; bounded by `timeoutMs` and `signal`. */
export async function waitForJob(
  get: (signal: AbortSignal | undefined) => Promise<Job>,
  options: WaitOptions = {},
): Promise<Job> {
  // NaN polled in a busy loop and never timed out; Infinity, or more than a timer holds, polled
  // at once (the timer fires at once): the gateway would be hammered.
  for (const name of ['pollIntervalMs', 'timeoutMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(typeof value === 'number' && value >= 0 && value <= MAX_TIMER_MS))
      refuseOption(
        'JobHandle.wait',
        name,
        value,
        `expected a number of milliseconds from 0 to ${MAX_TIMER_MS}.`,
      );
  }
  const interval = Math.max(10, options.pollIntervalMs ?? 500);
  const until = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    const job = await get(options.signal);
    if (isFinalJobStatus(job.status)) return job;
    if (Date.now() + interval > until) {
      throw new GatewayClientError({
        kind: 'timeout',
        message: `job ${job.jobId} is still ${job.status} after ${options.timeoutMs} ms`,
      });
    }
    await pause(interval, options.signal);
  }
}
