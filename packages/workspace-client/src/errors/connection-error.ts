import { WorkspaceError } from './workspace-error.ts';

/**
 * The request never produced an HTTP response (DNS failure, refused connection,
 * reset socket, CORS rejection in a browser) after all retries were spent.
 *
 * @example
 * ```ts
 * try {
 *   await client.debriefs.list();
 * } catch (error) {
 *   if (error instanceof WorkspaceConnectionError) console.error('service unreachable');
 * }
 * ```
 */
export class WorkspaceConnectionError extends WorkspaceError {
  override name = 'WorkspaceConnectionError';
}
