import { GatewayKitError } from '../runtime/gateway-kit-error.ts';

/**
 * Rejection of {@link JobStore.create} with a {@link JobQuotaClaim} when the job's owner has
 * spent a budget: `activeJobs` (queued or running jobs) or `heldBytes` (what those jobs hold of the
 * caller's requests). Nothing was written. The gateway answers it with `429 quota_exceeded`, as
 * when it claims the budgets in its record store. Stores that set `claimsJobQuotas` reject with
 * this class, so the gateway recognises the condition.
 *
 * @example
 * try {
 *   await store.create(job, claim);
 * } catch (error) {
 *   if (isJobQuotaError(error)) return quotaExceeded(error.quota);
 *   throw error;
 * }
 */
export class JobQuotaError extends GatewayKitError {
  override readonly name = 'JobQuotaError';
  /** The budget that is spent. */
  readonly quota: 'activeJobs' | 'heldBytes';

  constructor(quota: 'activeJobs' | 'heldBytes', options?: ErrorOptions) {
    super(`The job's owner has no ${quota} budget left.`, options);
    this.quota = quota;
  }
}

/**
 * Whether `error` is a {@link JobQuotaError}. Prefer it to `instanceof`: it also recognises the
 * error when the package is loaded twice (its ESM and CJS builds side by side).
 *
 * @example
 * await store.create(job, claim).catch((error) => {
 *   if (isJobQuotaError(error)) metrics.increment(`jobs.refused.${error.quota}`);
 *   throw error;
 * });
 */
export function isJobQuotaError(error: unknown): error is JobQuotaError {
  return error instanceof Error && error.name === 'JobQuotaError';
}
