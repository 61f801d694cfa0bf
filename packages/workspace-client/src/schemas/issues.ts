import * as v from 'valibot';
import {
  type ValidationIssue,
  type ValidationSide,
  WorkspaceValidationError,
} from '../errors/validation-error.ts';

/** Formats a valibot path as `a.b[2].c`. */
export function formatPath(path: readonly v.IssuePathItem[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    const key = (item as { key?: unknown }).key;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Converts valibot issues (including nested union issues) to flat `ValidationIssue`s. */
export function toIssues(issues: readonly v.BaseIssue<unknown>[]): ValidationIssue[] {
  return issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/**
 * Parses `value` with `schema`, or throws one `WorkspaceValidationError` listing every problem.
 */
export function parseOrThrow<T>(
  schema: v.GenericSchema<unknown, T>,
  value: unknown,
  side: ValidationSide,
  subject: string,
): T {
  const result = v.safeParse(schema, value);
  if (!result.success) throw new WorkspaceValidationError(side, subject, toIssues(result.issues));
  return result.output;
}
