/** Deadline of each request when `timeoutMs` is not given. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** How long a job may take to reach a final status when `jobTimeoutMs` is not given. */
export const DEFAULT_JOB_TIMEOUT_MS = 20_000;
/** Pause between two job polls when `pollIntervalMs` is not given. */
export const DEFAULT_POLL_INTERVAL_MS = 200;
/** Deadline of the whole run when `deadlineMs` is not given: 2 minutes. */
export const DEFAULT_DEADLINE_MS = 120_000;
/** The most actions of a manifest checked one by one when `maxActions` is not given. */
export const DEFAULT_MAX_ACTIONS = 100;

/**
 * Thrown by `checkGateway` (and reported by the CLI as a usage error, exit code 2) when an option
 * is unusable. The message names the option as the caller wrote it (`timeoutMs`, or `--timeout`
 * on the command line) and never contains the token.
 *
 * @example
 * try { await checkGateway({ url: 'ftp://x', token }); } catch (e) { if (e instanceof CheckOptionsError) console.error(e.message); }
 */
export class CheckOptionsError extends TypeError {
  override readonly name = 'CheckOptionsError';
}

/** The numeric options, with their CLI flags. */
const NUMBERS = {
  timeoutMs: '--timeout',
  jobTimeoutMs: '--job-timeout',
  pollIntervalMs: '--poll-interval',
  deadlineMs: '--deadline',
  maxActions: '--max-actions',
} as const;

/** What {@link validateCheckOptions} reads. */
export interface CheckOptionsInput {
  readonly url?: unknown;
  readonly token?: unknown;
  readonly only?: unknown;
  readonly timeoutMs?: unknown;
  readonly jobTimeoutMs?: unknown;
  readonly pollIntervalMs?: unknown;
  readonly deadlineMs?: unknown;
  readonly maxActions?: unknown;
  readonly callbackHost?: unknown;
}

/**
 * Checks the options of a run and throws a {@link CheckOptionsError} on the first unusable one.
 * `flags` names them as the CLI does (`--url`, `--timeout`); by default they are named as the
 * `checkGateway` options are. The wording is the same either way.
 *
 * @example
 * validateCheckOptions({ url: 'http://127.0.0.1:8787', token: 't', timeoutMs: 0 });
 * // throws CheckOptionsError: timeoutMs must be a whole number above 0 (got 0)
 */
export function validateCheckOptions(options: CheckOptionsInput, flags = false): void {
  const name = (option: keyof typeof NUMBERS | 'url' | 'token' | 'only' | 'callbackHost') =>
    !flags
      ? option
      : option === 'callbackHost'
        ? '--callback-host'
        : option in NUMBERS
          ? NUMBERS[option as keyof typeof NUMBERS]
          : `--${option}`;
  const { url, token } = options;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw new CheckOptionsError(`${name('url')} must be an http(s) URL`);
  }
  if (typeof token !== 'string' || token === '') {
    throw new CheckOptionsError(
      flags
        ? '--token (or the SVC_GATEWAY_TOKEN environment variable) is required'
        : 'token is required (a non-empty string)',
    );
  }
  if ([...token].some((c) => c <= ' ' || c === '\u007f')) {
    throw new CheckOptionsError(
      `${name('token')} must not contain spaces or control characters (the value is not shown)`,
    );
  }
  const only = options.only;
  if (
    only !== undefined &&
    typeof only !== 'string' &&
    !(Array.isArray(only) && only.every((p) => typeof p === 'string'))
  ) {
    throw new CheckOptionsError(`${name('only')} must be a pattern or a list of patterns`);
  }
  if (options.callbackHost !== undefined && typeof options.callbackHost !== 'string') {
    throw new CheckOptionsError(`${name('callbackHost')} must be a host name or an IP address`);
  }
  for (const option of Object.keys(NUMBERS) as (keyof typeof NUMBERS)[]) {
    const value = options[option];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      const got =
        typeof value === 'number' || typeof value === 'string'
          ? JSON.stringify(value)
          : typeof value;
      const unit = option === 'maxActions' ? '' : ' of milliseconds';
      throw new CheckOptionsError(
        `${name(option)} must be a whole number${unit} above 0 (got ${got})`,
      );
    }
  }
}
