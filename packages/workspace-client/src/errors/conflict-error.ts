import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 409: the write conflicts with the current state. Never retried automatically.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof ConflictError) console.error(error.status, error.message);
 * }
 * ```
 */
export class ConflictError extends WorkspaceApiError {
  override name = 'ConflictError';
}
