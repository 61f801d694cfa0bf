import * as v from 'valibot';
import type { StandardSchemaV1 } from '../contract/standard-schema.ts';
import { type ActionInputSchema, isValibotSchema } from './input-schema.ts';
import { type SafeIssue, safeStandardIssues, valibotSafeMessage } from './safe-issues.ts';

/** One validation problem as reported in `error.details.issues`. */
export interface IssueDetail {
  /** Dot path into the request body, e.g. `action.input.accountId`; empty for the root. */
  readonly path: string;
  readonly message: string;
}

/** At most this many issues are reported; the rest are counted in `details.truncated`. */
export const MAX_REPORTED_ISSUES = 20;

/** The valibot config that makes every default message safe to send back. */
export const SAFE_PARSE_CONFIG: v.Config<v.BaseIssue<unknown>> = { message: valibotSafeMessage };

const MAX_SEGMENT = 64;

function pathOf(issue: SafeIssue, prefix: string): string {
  const segments = prefix ? [prefix] : [];
  for (const item of issue.path ?? []) {
    // valibot path items are `{ key }` objects; Standard Schema paths may also hold bare keys.
    const key = String(
      typeof item === 'object' && item !== null ? (item as { key: unknown }).key : item,
    );
    segments.push(key.length > MAX_SEGMENT ? `${key.slice(0, MAX_SEGMENT)}…` : key);
  }
  return segments.join('.');
}

/**
 * Turns validation issues (valibot's, or {@link parseActionInput}'s) into the `details` of a 422
 * answer: paths and messages, never values.
 *
 * @example
 * describeIssues(result.issues, 'action.input'); // { issues: [{ path: 'action.input.accountId', message: 'Required' }] }
 */
export function describeIssues(
  issues: readonly SafeIssue[],
  prefix = '',
): { issues: IssueDetail[]; truncated?: number } {
  const described = issues
    .slice(0, MAX_REPORTED_ISSUES)
    .map((issue) => ({ path: pathOf(issue, prefix), message: issue.message }));
  return issues.length > MAX_REPORTED_ISSUES
    ? { issues: described, truncated: issues.length - MAX_REPORTED_ISSUES }
    : { issues: described };
}

/** The outcome of validating an action's input: its output, or issues safe to report. */
export type InputCheck =
  | { readonly success: true; readonly output: unknown; readonly issues?: undefined }
  | { readonly success: false; readonly issues: readonly SafeIssue[] };

type StandardResult = StandardSchemaV1.Result<unknown>;

function checkOf(result: StandardResult, vendor: string, input: unknown): InputCheck {
  return result.issues
    ? {
        success: false,
        issues: safeStandardIssues(vendor, result.issues, input, MAX_REPORTED_ISSUES),
      }
    : { success: true, output: result.value };
}

/**
 * Validates an action's input. A valibot schema is run by valibot: synchronously for sync schemas
 * (valibot's async path allocates a promise per entry, several times slower), asynchronously only
 * for schemas with async checks. Any other schema goes through its Standard Schema `validate`,
 * awaited only when it returns a promise.
 *
 * @example
 * const checked = parseActionInput(action.input, body.action.input);
 * const input = checked instanceof Promise ? await checked : checked;
 */
export function parseActionInput(
  schema: ActionInputSchema | v.GenericSchemaAsync<Record<string, unknown>, unknown>,
  input: unknown,
): InputCheck | Promise<InputCheck> {
  if (isValibotSchema(schema)) {
    return schema.async
      ? v.safeParseAsync(schema, input, SAFE_PARSE_CONFIG)
      : v.safeParse(
          schema as v.GenericSchema<Record<string, unknown>, unknown>,
          input,
          SAFE_PARSE_CONFIG,
        );
  }
  const standard = schema['~standard'];
  const result = standard.validate(input);
  // Any thenable becomes a native promise, the one kind callers test for.
  return typeof (result as Partial<PromiseLike<StandardResult>>).then === 'function'
    ? Promise.resolve(result).then((settled) => checkOf(settled, standard.vendor, input))
    : checkOf(result as StandardResult, standard.vendor, input);
}
