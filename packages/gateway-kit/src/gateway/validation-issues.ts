import * as v from 'valibot';

/** One validation problem as reported in `error.details.issues`. */
export interface IssueDetail {
  /** Dot path into the request body, e.g. `action.input.accountId`; empty for the root. */
  readonly path: string;
  readonly message: string;
}

/** At most this many issues are reported; the rest are counted in `details.truncated`. */
export const MAX_REPORTED_ISSUES = 20;

// valibot's default messages quote the received value ("…but received "secret""). These never do,
// so no part of the caller's input is echoed back. Messages written by schema authors still apply.
function safeMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema') {
    if (issue.expected === 'never' && issue.path) return 'Unknown property';
    if (issue.received === 'undefined') return 'Required';
    return issue.expected ? `Expected ${issue.expected}` : 'Invalid value';
  }
  const what = issue.type.replaceAll('_', ' ');
  return issue.expected ? `Invalid ${what}: expected ${issue.expected}` : `Invalid ${what}`;
}

/** The valibot config that makes every default message safe to send back. */
export const SAFE_PARSE_CONFIG: v.Config<v.BaseIssue<unknown>> = { message: safeMessage };

const MAX_SEGMENT = 64;

function pathOf(issue: v.BaseIssue<unknown>, prefix: string): string {
  const segments = prefix ? [prefix] : [];
  for (const item of issue.path ?? []) {
    const key = String(item.key);
    segments.push(key.length > MAX_SEGMENT ? `${key.slice(0, MAX_SEGMENT)}…` : key);
  }
  return segments.join('.');
}

/**
 * Turns valibot issues into the `details` of a 422 answer: paths and messages, never values.
 *
 * @example
 * describeIssues(result.issues, 'action.input'); // { issues: [{ path: 'action.input.accountId', message: 'Required' }] }
 */
export function describeIssues(
  issues: readonly v.BaseIssue<unknown>[],
  prefix = '',
): { issues: IssueDetail[]; truncated?: number } {
  const described = issues
    .slice(0, MAX_REPORTED_ISSUES)
    .map((issue) => ({ path: pathOf(issue, prefix), message: issue.message }));
  return issues.length > MAX_REPORTED_ISSUES
    ? { issues: described, truncated: issues.length - MAX_REPORTED_ISSUES }
    : { issues: described };
}

/**
 * Validates an action's input: synchronously for sync schemas (valibot's async path allocates a
 * promise per entry, several times slower), asynchronously only for schemas with async checks.
 */
export function parseActionInput(
  schema:
    | v.GenericSchema<Record<string, unknown>, unknown>
    | v.GenericSchemaAsync<Record<string, unknown>, unknown>,
  input: unknown,
): v.SafeParseResult<typeof schema> | Promise<v.SafeParseResult<typeof schema>> {
  return schema.async
    ? v.safeParseAsync(schema, input, SAFE_PARSE_CONFIG)
    : v.safeParse(
        schema as v.GenericSchema<Record<string, unknown>, unknown>,
        input,
        SAFE_PARSE_CONFIG,
      );
}
