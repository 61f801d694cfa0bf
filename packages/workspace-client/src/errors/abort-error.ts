import { WorkspaceError } from './workspace-error.ts';

/**
 * The caller aborted the call through its `signal`, during a request or during
 * the wait before a retry. It is never retried.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const pending = client.skills.list({ signal: controller.signal });
 * controller.abort();
 * await pending.catch((error) => error instanceof WorkspaceAbortError); // true
 * ```
 */
export class WorkspaceAbortError extends WorkspaceError {
  override name = 'WorkspaceAbortError';
}
