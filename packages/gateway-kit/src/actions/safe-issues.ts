import type * as v from 'valibot';
import type { StandardSchemaV1 } from '../contract/standard-schema.ts';

/** A validation problem whose message is safe to send back: it quotes no part of the input. */
export interface SafeIssue {
  readonly message: string;
  readonly path?: readonly unknown[] | undefined;
}

/**
 * valibot's default messages quote the received value ("…but received "secret""); these never do.
 * Messages written by schema authors are not touched.
 *
 * @example
 * v.safeParse(schema, input, { message: valibotSafeMessage });
 */
export function valibotSafeMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema') {
    if (issue.expected === 'never' && issue.path) return 'Unknown property';
    if (issue.received === 'undefined') return 'Required';
    return issue.expected ? `Expected ${issue.expected}` : 'Invalid value';
  }
  const what = issue.type.replaceAll('_', ' ');
  return issue.expected ? `Invalid ${what}: expected ${issue.expected}` : `Invalid ${what}`;
}

const INVALID_VALUE = 'Invalid value';
const MAX_SCANNED_STRINGS = 64;
const MIN_BARE_MATCH = 8;

type VendorIssue = StandardSchemaV1.Issue & Record<string, unknown>;

/** The key of a Standard Schema path segment (`key` or `{ key }`). */
const keyOf = (segment: unknown): unknown =>
  typeof segment === 'object' && segment !== null && 'key' in segment
    ? (segment as StandardSchemaV1.PathSegment).key
    : segment;

/** The part of `input` an issue's path points at (own properties only), or undefined. */
function valueAt(input: unknown, path: readonly unknown[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    if (typeof key !== 'string' && typeof key !== 'number') return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** Up to {@link MAX_SCANNED_STRINGS} string values found in `value`, depth first. */
function stringsIn(value: unknown, found: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') {
    found.push(value);
  } else if (typeof value === 'object' && value !== null && depth < 8) {
    for (const item of Object.values(value)) {
      if (found.length >= MAX_SCANNED_STRINGS) break;
      stringsIn(item, found, depth + 1);
    }
  }
  return found;
}

/**
 * Whether `message` quotes a string of the input at the issue's place: in double quotes, or bare
 * when it is long enough not to be a word of the message by chance. Such a message is replaced,
 * whatever the vendor.
 */
function quotesInput(message: string, valueAtPath: unknown): boolean {
  for (const text of stringsIn(valueAtPath)) {
    if (text.length >= MIN_BARE_MATCH ? message.includes(text) : message.includes(`"${text}"`))
      return true;
  }
  return false;
}

/** valibot through `toStandardJsonSchema`: its default messages are rebuilt like the native path's. */
function valibotMessage(issue: VendorIssue): string {
  const received = issue.received;
  return typeof received === 'string' &&
    typeof issue.kind === 'string' &&
    issue.message.endsWith(`eceived ${received}`)
    ? valibotSafeMessage(issue as unknown as v.BaseIssue<unknown>)
    : issue.message;
}

/** arktype: `"<path> must be X (was Y)"` becomes `"Must be X"`; the path is reported apart. */
function arktypeMessage(issue: VendorIssue): string {
  const { actual, code, expected, propString } = issue;
  if (code === 'predicate' && expected === 'removed') return 'Unknown property';
  let message = issue.message;
  if (typeof actual === 'string' && actual && message.endsWith(` (was ${actual})`)) {
    message = message.slice(0, -` (was ${actual})`.length);
  }
  if (typeof propString === 'string' && propString && message.startsWith(`${propString} `)) {
    message = message.slice(propString.length + 1);
  }
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** Stands for each issue past the reported ones: counted, never read, so not worked out. */
const UNREPORTED: SafeIssue = Object.freeze({ message: INVALID_VALUE });

/**
 * Turns the issues of a Standard Schema `validate` into issues safe to report: paths as plain
 * keys, messages that never quote the input. zod's unrecognized keys become one `Unknown property`
 * per key (as valibot's strict objects report them); arktype's `(was …)` suffixes are dropped;
 * any message of any vendor that still quotes a string of the input becomes `Invalid value`.
 * Only the first `reported` issues are worked out; the others are only counted.
 *
 * @example
 * safeStandardIssues('zod', result.issues, input, 20); // [{ path: ['accountId'], message: 'Invalid input: expected string, received number' }]
 */
export function safeStandardIssues(
  vendor: string,
  issues: ReadonlyArray<StandardSchemaV1.Issue>,
  input: unknown,
  reported: number,
): SafeIssue[] {
  if (issues.length === 0) return [{ message: INVALID_VALUE }];
  const safe: SafeIssue[] = [];
  for (const raw of issues) {
    const issue = raw as VendorIssue;
    if (vendor === 'zod' && issue.code === 'unrecognized_keys' && Array.isArray(issue.keys)) {
      const path = (issue.path ?? []).map(keyOf);
      for (const key of issue.keys) {
        safe.push(
          safe.length < reported
            ? { path: [...path, key], message: 'Unknown property' }
            : UNREPORTED,
        );
      }
      continue;
    }
    if (safe.length >= reported) {
      safe.push(UNREPORTED);
      continue;
    }
    const path = (issue.path ?? []).map(keyOf);
    const message =
      vendor === 'arktype'
        ? arktypeMessage(issue)
        : vendor === 'valibot'
          ? valibotMessage(issue)
          : String(issue.message);
    safe.push({
      path,
      message: quotesInput(message, valueAt(input, path)) ? INVALID_VALUE : message,
    });
  }
  return safe;
}
