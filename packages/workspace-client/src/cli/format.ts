import type { FileIssue } from './load.ts';
import type { Action, Change } from './plan.ts';
import { summarize } from './plan.ts';

const SIGNS: Record<Action, string> = { create: '+', update: '~', unchanged: '=', delete: '-' };

/** One line per problem: `file: field: message`. */
export function formatIssues(issues: readonly FileIssue[]): string {
  return issues
    .map((issue) => `${issue.file}: ${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`)
    .join('\n');
}

/** The plan as text, one line per object, then a summary line. */
export function formatPlan(changes: readonly Change[]): string {
  const lines = changes.map((change) => {
    const where = change.file === undefined ? '' : `  (${change.file})`;
    const fields = change.fields === undefined ? '' : `: ${change.fields.join(', ')}`;
    return `${SIGNS[change.action]} ${change.action.padEnd(9)} ${change.kind}/${change.key}${where}${fields}`;
  });
  const counts = summarize(changes);
  lines.push(
    `Plan: ${counts.create} to create, ${counts.update} to update, ${counts.delete} to delete, ${counts.unchanged} unchanged.`,
  );
  return lines.join('\n');
}
