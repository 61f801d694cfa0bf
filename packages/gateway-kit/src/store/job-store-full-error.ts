import { GatewayKitError } from '../runtime/gateway-kit-error.ts';

/**
 * Rejection of {@link JobStore.create} when the store is at capacity and every stored job is still
 * active (`queued` or `running`), so nothing can be evicted. It is a load signal, not a bug: the
 * gateway answers it with a retryable 503 (`unavailable`). Adapters other than
 * `MemoryJobStore` should reject with this class too, so the gateway recognises the condition.
 *
 * @example
 * try {
 *   await store.create(job);
 * } catch (error) {
 *   if (isJobStoreFullError(error)) return reply(503, gatewayError('unavailable'));
 *   throw error;
 * }
 */
export class JobStoreFullError extends GatewayKitError {
  override readonly name = 'JobStoreFullError';
  /** Always true: the same request may succeed once running jobs finish. */
  readonly retryable = true;
  /** The capacity that was reached. */
  readonly maxJobs: number;

  constructor(maxJobs: number, options?: ErrorOptions) {
    super(`The job store is full: all ${maxJobs} stored jobs are still active.`, options);
    this.maxJobs = maxJobs;
  }
}

/**
 * Whether `error` is a {@link JobStoreFullError}. Prefer it to `instanceof`: it also recognises the
 * error when the package is loaded twice (its ESM and CJS builds side by side).
 *
 * @example
 * await store.create(job).catch((error) => {
 *   if (isJobStoreFullError(error)) metrics.increment('jobs.rejected_full');
 *   throw error;
 * });
 */
export function isJobStoreFullError(error: unknown): error is JobStoreFullError {
  return error instanceof Error && error.name === 'JobStoreFullError';
}
