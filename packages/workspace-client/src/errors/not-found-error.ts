import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 404: no skill, agent or debrief exists under that key (or the route does not exist).
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof NotFoundError) console.error(error.status, error.message);
 * }
 * ```
 */
export class NotFoundError extends WorkspaceApiError {
  override name = 'NotFoundError';
}
