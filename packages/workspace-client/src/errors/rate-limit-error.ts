import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 429: too many requests. Thrown once retries are spent, or at once when the
 * server asks to wait longer than `maxRetryAfterMs` (default 60 s); `retryAfterMs`
 * then says how long the server asked to wait.
 *
 * @example
 * ```ts
 * try {
 *   await client.debriefs.upsert(myDebrief);
 * } catch (error) {
 *   if (error instanceof RateLimitError && error.retryAfterMs !== undefined) {
 *     scheduleLater(error.retryAfterMs);
 *   }
 * }
 * ```
 */
export class RateLimitError extends WorkspaceApiError {
  override name = 'RateLimitError';
}
