import { GatewayCheckError } from './gateway-check-error.ts';

/**
 * Thrown for an unusable option: by `checkGateway` (and reported by the CLI as a usage error,
 * exit code 2), `createGatewayClient` and `JobHandle.wait`. A {@link GatewayCheckError}, like
 * every error of the package. The message names the option as the caller wrote it
 * (`checkGateway: timeoutMs is …`, or `svc-gateway-check: --timeout is …` on the command line)
 * and the kind of value, never the value (so never the token).
 *
 * @example
 * try { await checkGateway({ url: 'ftp://x', token }); } catch (e) { if (e instanceof CheckOptionsError) console.error(e.message); }
 */
export class CheckOptionsError extends GatewayCheckError {
  override readonly name: string = 'CheckOptionsError';
}

/** The longest timer the runtimes hold (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS: number = 2_147_483_647;

/**
 * What an option value is, for an error message: its kind, never its content (tokens pass through
 * here); a number is shown unless `hidden` (a token or a URL, where a number may be the token). A
 * documented copy of `@svc/gateway-kit`'s `describeKind`: the checker depends on no package of
 * the gateways it checks.
 */
function kindOf(value: unknown, hidden: boolean): string {
  const type = typeof value;
  if (value == null || type === 'boolean') return String(value);
  if (type === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    return hidden ? 'a number' : `the number ${value}`;
  }
  if (type === 'string')
    return value === ''
      ? 'an empty string'
      : `a string${value === (value as string).trim() ? '' : ' with surrounding spaces'}`;
  return Array.isArray(value) ? 'an array' : `a${type === 'object' ? 'n' : ''} ${type}`;
}

/**
 * Throws the {@link CheckOptionsError} `<who>: <path> is <kind>: <expected>`, the SDK's one
 * message style; for an option an unset environment variable may leave empty (`fromEnv`: the token,
 * the URL), asks whether one is unset, and never shows a number given instead.
 *
 * @example
 * refuseOption('createGatewayClient', 'timeoutMs', 0, 'expected a whole number of milliseconds from 1 to 2147483647.');
 */
export function refuseOption(
  who: string,
  path: string,
  value: unknown,
  expected: string,
  fromEnv = false,
): never {
  const hint =
    fromEnv && (value === undefined || value === '')
      ? `is an environment variable unset? (${expected.replace(/\.$/, '')})`
      : expected;
  throw new CheckOptionsError(`${who}: ${path} is ${kindOf(value, fromEnv)}: ${hint}`);
}

/** The longest key named in full in an unknown-option message, and the most keys named. */
const MAX_KEY_LENGTH = 64;
const MAX_NAMED_KEYS = 5;

/**
 * Throws the {@link CheckOptionsError} `<who>: unknown option "x" (known: a, b).` when `options`
 * has an own key outside `known`: a misspelt option (`tokn`, `timeout`) would otherwise be
 * ignored, and a run or a client would go on with the default (no token, 10 s). Names the keys,
 * never their values (an option may hold a token). The style of `@svc/gateway-kit`'s
 * `createGateway`.
 *
 * @example
 * refuseUnknownOptions('createGatewayClient', { url, tokn: 't' }, ['url', 'token']);
 * // CheckOptionsError: createGatewayClient: unknown option "tokn" (known: url, token).
 */
export function refuseUnknownOptions(who: string, options: object, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const named = unknown
    .slice(0, MAX_NAMED_KEYS)
    .map((key) =>
      JSON.stringify(key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key),
    )
    .join(', ');
  const more =
    unknown.length > MAX_NAMED_KEYS ? ` and ${unknown.length - MAX_NAMED_KEYS} more` : '';
  throw new CheckOptionsError(
    `${who}: unknown option${unknown.length > 1 ? 's' : ''} ${named}${more} (known: ${known.join(', ')}).`,
  );
}

/** What a duration option accepts, for its error: a whole number of ms a timer holds. */
export const WHOLE_MS: string = `expected a whole number of milliseconds from 1 to ${MAX_TIMER_MS}.`;

/** Whether `value` is a whole number of milliseconds from 1 to {@link MAX_TIMER_MS}. */
export const isWholeMs = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_TIMER_MS;
