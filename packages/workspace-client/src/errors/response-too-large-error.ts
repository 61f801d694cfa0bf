import { WorkspaceError } from './workspace-error.ts';

/**
 * A successful response body was larger than `maxResponseBytes` (default 16 MiB). The body is
 * abandoned as soon as the limit is passed (or at once when `Content-Length` announces it),
 * so memory stays bounded; the call is not retried.
 *
 * @example
 * ```ts
 * try {
 *   await client.debriefs.list();
 * } catch (error) {
 *   if (error instanceof WorkspaceResponseTooLargeError) console.error(error.limitBytes);
 * }
 * ```
 */
export class WorkspaceResponseTooLargeError extends WorkspaceError {
  override name = 'WorkspaceResponseTooLargeError';
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(what: string, limitBytes: number) {
    super(`${what}: response body exceeds maxResponseBytes (${limitBytes} bytes)`);
    this.limitBytes = limitBytes;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), limitBytes: this.limitBytes };
  }
}
