import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 400: the service could not read the request (malformed JSON or parameters).
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof BadRequestError) console.error(error.status, error.message);
 * }
 * ```
 */
export class BadRequestError extends WorkspaceApiError {
  override name = 'BadRequestError';
}
