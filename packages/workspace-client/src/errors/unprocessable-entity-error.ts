import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 422: the service rejected the content (for example its debrief validation failed). `body` holds its explanation.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof UnprocessableEntityError) console.error(error.status, error.message);
 * }
 * ```
 */
export class UnprocessableEntityError extends WorkspaceApiError {
  override name = 'UnprocessableEntityError';
}
