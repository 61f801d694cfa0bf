import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 401: the workspace key (or token) is missing, unknown or expired. Never retried.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof AuthenticationError) console.error(error.status, error.message);
 * }
 * ```
 */
export class AuthenticationError extends WorkspaceApiError {
  override name = 'AuthenticationError';
}
