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
  /** The error class's name, e.g. `NotFoundError`. */
  override name = 'WorkspaceError';

  /** Always `true`: what {@link isWorkspaceError} looks for across copies of the package. */
  get isWorkspaceError(): true {
    return true;
  }

  /** Plain, secret-free representation used by `JSON.stringify(error)`. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }
}

/**
 * Whether `error` is one of `@svc/workspace-client`'s errors, from this or any other copy of the
 * package (ESM and CJS builds side by side, a bundled copy). Narrow further with the subclasses.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.list();
 * } catch (error) {
 *   if (isWorkspaceError(error)) console.error(error.name, error.message);
 * }
 * ```
 */
export function isWorkspaceError(error: unknown): error is WorkspaceError {
  // Every WorkspaceError has the getter, so one test covers this copy and any other.
  return error instanceof Error && (error as Partial<WorkspaceError>).isWorkspaceError === true;
}
