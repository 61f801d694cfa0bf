import { WorkspaceConnectionError } from './connection-error.ts';

/**
 * A request attempt exceeded `timeout`, or the whole call (all attempts and waits)
 * exceeded `totalTimeout`, and no retry was left.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.list({ timeout: 2_000 });
 * } catch (error) {
 *   if (error instanceof WorkspaceTimeoutError) console.error('too slow');
 * }
 * ```
 */
export class WorkspaceTimeoutError extends WorkspaceConnectionError {
  override name = 'WorkspaceTimeoutError';
}
