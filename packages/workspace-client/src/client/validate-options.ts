import { WorkspaceConfigError } from '../errors/config-error.ts';

/** Longest timer the runtimes accept (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * What an option value is, for an error message: its kind, never its content (keys pass through
 * here); a number is shown unless `hidden` (a key, where a number may be the key). A documented
 * copy of `@svc/gateway-kit`'s `describeKind`, shortened (this package depends on no other of the
 * SDK, and counts its bytes).
 */
function kindOf(value: unknown, hidden: boolean): string {
  const type = typeof value;
  if (value == null || type === 'boolean') return String(value);
  if (type === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    return hidden ? 'a number' : `the number ${value}`;
  }
  if (type === 'string') return value === '' ? 'an empty string' : 'a string';
  return Array.isArray(value) ? 'an array' : `a${type === 'object' ? 'n' : ''} ${type}`;
}

/**
 * Throws the `WorkspaceConfigError` `<factory>: <path> is <kind>: <what to do>`, the one message
 * style of the SDK's option errors (`createGateway: auth.tokens[0] is undefined: …`). `hidden`
 * for the key and the base URL: a number given there is not shown.
 *
 * @example
 * refuse('baseUrl', 'ftp://x', 'expected an absolute http(s) URL.', 'createWorkspaceClient');
 * // WorkspaceConfigError: createWorkspaceClient: baseUrl is a string: expected an absolute http(s) URL.
 */
export function refuse(
  path: string,
  value: unknown,
  expected: string,
  factory: string,
  hidden = false,
): never {
  throw new WorkspaceConfigError(`${factory}: ${path} is ${kindOf(value, hidden)}: ${expected}`);
}

/**
 * Checks a timeout option: `undefined`, `false`, or a whole number of ms from 1 to
 * `MAX_TIMEOUT_MS`. `'abc'` or `-5` would otherwise become 1 ms timers.
 */
export function checkTimeout(name: string, value: unknown, factory: string): void {
  if (value === undefined || value === false) return;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_TIMEOUT_MS) {
    refuse(
      name,
      value,
      `expected false or a whole number of ms from 1 to ${MAX_TIMEOUT_MS}.`,
      factory,
    );
  }
}

/**
 * Refuses the keys of `options` that `known` does not list (JavaScript callers get no compile
 * error for a misspelt option, which would otherwise be ignored): the `WorkspaceConfigError`
 * `<factory>: [<path>: ]unknown option "x" (known: a, b).`, naming keys, never values. `path`
 * (`'retry: '`) leads to a nested object.
 *
 * @example
 * checkKeys({ baseUrl, apiKey, maxRetry: 5 }, CLIENT_KEYS, 'createWorkspaceClient');
 * // WorkspaceConfigError: createWorkspaceClient: unknown option "maxRetry" (known: baseUrl, apiKey, …).
 */
export function checkKeys(
  options: object,
  known: readonly string[],
  factory: string,
  path = '',
): void {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown[0] !== undefined)
    throw new WorkspaceConfigError(
      `${factory}: ${path}unknown option${unknown[1] === undefined ? '' : 's'} "${unknown.join('", "')}" (known: ${known.join(', ')}).`,
    );
}

/** Checks that an optional callback option is a function. */
export function checkFunction(name: string, value: unknown, factory: string): void {
  if (value !== undefined && typeof value !== 'function')
    refuse(name, value, 'expected a function.', factory);
}

/** Checks a `headers` option: a plain object of string values. */
export function checkHeaders(name: string, value: unknown, factory: string): void {
  if (value === undefined) return;
  if (
    value === null ||
    typeof value !== 'object' ||
    Object.values(value).some((item) => typeof item !== 'string')
  ) {
    refuse(name, value, 'expected an object of string values.', factory);
  }
}
