import { WorkspaceError } from './workspace-error.ts';

/** One problem found while validating a request or a response. */
export interface ValidationIssue {
  /** Location of the problem, e.g. `contract.sections[1].pageIndex`; `''` for the root. */
  readonly path: string;
  /** Human-readable description of the problem. */
  readonly message: string;
}

/** Which side failed validation: what you were about to send, or what the service answered. */
export type ValidationSide = 'request' | 'response';

/**
 * Thrown when data fails schema validation. It is outside the HTTP error hierarchy:
 * a `request` side error means nothing was sent; a `response` side error means the
 * service answered 2xx with a body this client cannot read (switch response
 * validation off with `validateResponses: false` to receive it unchecked).
 *
 * Every problem is reported at once in `issues`, each with a path.
 *
 * @example
 * ```ts
 * try {
 *   await client.skills.upsert({ name: '', instructions: 'x' });
 * } catch (error) {
 *   if (error instanceof WorkspaceValidationError) {
 *     for (const issue of error.issues) console.error(`${issue.path}: ${issue.message}`);
 *   }
 * }
 * ```
 */
export class WorkspaceValidationError extends WorkspaceError {
  override name = 'WorkspaceValidationError';
  /** `request`: nothing was sent; `response`: the service's 2xx body could not be read. */
  readonly side: ValidationSide;
  /** Every problem found, each with its path. */
  readonly issues: readonly ValidationIssue[];

  constructor(side: ValidationSide, subject: string, issues: readonly ValidationIssue[]) {
    const list = issues
      .map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`)
      .join('\n');
    const what = side === 'request' ? 'Invalid' : 'Unexpected response for';
    super(
      `${what} ${subject} (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${list}`,
    );
    this.side = side;
    this.issues = issues;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), side: this.side, issues: this.issues };
  }
}
