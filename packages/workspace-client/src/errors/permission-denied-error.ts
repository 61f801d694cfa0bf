import { WorkspaceApiError } from './api-error.ts';

/**
 * HTTP 403: the key is valid but may not perform this operation.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * } catch (error) {
 *   if (error instanceof PermissionDeniedError) console.error(error.status, error.message);
 * }
 * ```
 */
export class PermissionDeniedError extends WorkspaceApiError {
  override name = 'PermissionDeniedError';
}
