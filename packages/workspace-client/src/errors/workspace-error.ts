/**
 * Base class of every error thrown by `@svc/workspace-client`.
 *
 * Catch this to handle any failure of the client in one place; narrow with the
 * subclasses (`WorkspaceApiError`, `WorkspaceConnectionError`, `WorkspaceValidationError`, ...).
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.list();
 * } catch (error) {
 *   if (error instanceof WorkspaceError) console.error(error.name, error.message);
 * }
 * ```
 */
export class WorkspaceError extends Error {
  override name = 'WorkspaceError';

  /** Plain, secret-free representation used by `JSON.stringify(error)`. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }
}
