import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 5xx: the service failed. 500, 502, 503 and 504 are retried first; this is thrown once retries are spent.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof InternalServerError) console.error(error.status, error.message);
 * }
 * ```
 */
export class InternalServerError extends WorkspaceApiError {
  override name = 'InternalServerError';
}
