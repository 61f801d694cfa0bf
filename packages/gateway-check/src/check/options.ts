import {
  isWholeMs,
  refuseOption,
  refuseUnknownOptions,
  WHOLE_MS,
} from '../errors/check-options-error.ts';
import { type FetchLike, hasCredentials } from '../http/exchange.ts';
import type { CheckResult } from './report.ts';

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

export { CheckOptionsError } from '../errors/check-options-error.ts';

/**
 * Options of `checkGateway`.
 *
 * @example
 * const options: CheckGatewayOptions = { url: 'http://127.0.0.1:8787', token, only: ['auth-bearer'] };
 */
export interface CheckGatewayOptions {
  /**
   * The gateway base address, e.g. `http://127.0.0.1:8787`; without credentials (`http://u:p@…` is
   * refused: the URL is named in messages and reports).
   */
  readonly url: string;
  /** A bearer token the gateway accepts. Never printed or reported. */
  readonly token: string;
  /** Run only the checks these patterns select (`auth-bearer`, `job-*`, `*:wrong-token`). */
  readonly only?: string | readonly string[];
  /**
   * Also invoke actions whose `sideEffectLevel` is not `read`. Off by default: their checks are
   * then skipped, with why.
   */
  readonly allowWrites?: boolean;
  /**
   * Host (name or IP, an IPv6 address in brackets; no port) where the gateway can reach this
   * machine; enables the callback checks. With `callbackUrl`, only where the receiver listens
   * (default there `127.0.0.1`).
   */
  readonly callbackHost?: string;
  /**
   * The port the callback receiver listens on (1 to 65535), and, without `callbackUrl`, the port
   * of the callback URL the gateway is given: for a gateway that reaches this machine through one
   * forwarded or opened port. Needs `callbackHost` or `callbackUrl`. Default: a free port picked
   * at each run.
   */
  readonly callbackPort?: number;
  /**
   * The public base URL the gateway is told to call back, for a gateway that reaches this machine
   * only through a tunnel or reverse proxy (`https://abc.tunnel.example/some/prefix`, forwarding
   * to `127.0.0.1:<callbackPort>`); enables the callback checks. Each callback URL is a path under
   * it (its prefix kept); the receiver accepts the forwarded request with the prefix kept or
   * stripped. http(s) only (https expected: deployed gateways refuse plain http), no query,
   * fragment or credentials; never printed past its origin (its path may hold a secret). Needs
   * `callbackPort` (the port the proxy forwards to); the receiver listens on `callbackHost`, or
   * `127.0.0.1` without it.
   */
  readonly callbackUrl?: string;
  /** A fetch implementation; default the global `fetch`. A gateway's own `fetch` works in-process. */
  readonly fetch?: FetchLike;
  /** Deadline of each request. Default 10 s. */
  readonly timeoutMs?: number;
  /** How long a job may take to reach a final status. Default 20 s. */
  readonly jobTimeoutMs?: number;
  /** Pause between two job polls. Default 200 ms. */
  readonly pollIntervalMs?: number;
  /**
   * Deadline of the whole run. Default 2 minutes. When it passes, no further check starts, the
   * check in flight is left out, and the report is `incomplete` (the CLI exits 2).
   */
  readonly deadlineMs?: number;
  /**
   * The most actions of the manifest checked one by one (input schema, invokes, jobs). Default
   * 100; the others are named in one skipped check.
   */
  readonly maxActions?: number;
  /** Stops the run (as the deadline does). */
  readonly signal?: AbortSignal;
  /** Called as each check ends (progress output). */
  readonly onCheck?: (result: CheckResult) => void;
}

/** The numeric options, with their CLI flags. */
const NUMBERS = {
  timeoutMs: '--timeout',
  jobTimeoutMs: '--job-timeout',
  pollIntervalMs: '--poll-interval',
  deadlineMs: '--deadline',
  maxActions: '--max-actions',
} as const;

/** The function options of `checkGateway` (not settable on the command line). */
const FUNCTIONS = ['fetch', 'onCheck'] as const;

/**
 * Every option of `checkGateway`, in the order its error lists them. Typed against
 * {@link CheckGatewayOptions}: an option added there without a line here fails the typecheck.
 */
const KNOWN_OPTIONS = /* @__PURE__ */ Object.keys({
  url: true,
  token: true,
  only: true,
  allowWrites: true,
  callbackHost: true,
  callbackPort: true,
  callbackUrl: true,
  fetch: true,
  timeoutMs: true,
  jobTimeoutMs: true,
  pollIntervalMs: true,
  deadlineMs: true,
  maxActions: true,
  signal: true,
  onCheck: true,
} satisfies { readonly [K in keyof CheckGatewayOptions]-?: true });

/**
 * Whether `value` is a host for the callback URL: a name or an IPv4 address, or an IPv6 address
 * in brackets, without scheme, credentials, port or path. The empty string passes (no callbacks).
 */
function isCallbackHost(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (value === '') return true;
  const ipv6 = /^\[[0-9A-Fa-f:.]+\]$/.test(value);
  if (!ipv6 && /[\s:/?#@[\]\\]/.test(value)) return false;
  return URL.canParse(`http://${value}/`);
}

/**
 * What keeps `value` from being a base for callback URLs (an absolute http(s) URL without
 * credentials, query or fragment: a path under it is appended), or `undefined`. The empty string
 * passes (no callbacks).
 */
function callbackUrlProblem(value: unknown): string | undefined {
  if (value === '') return undefined;
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value) || !URL.canParse(value))
    return 'expected an absolute http(s) URL, the public address that forwards to the callback receiver (https://abc.tunnel.example/prefix).';
  if (hasCredentials(value))
    return 'expected a URL without credentials (the gateway is given callbacks.authorization for that).';
  if (/[?#]/.test(value))
    return 'expected a URL without a query or fragment (each callback URL is a path under it).';
  return undefined;
}

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
  readonly callbackPort?: unknown;
  readonly callbackUrl?: unknown;
  readonly allowWrites?: unknown;
  readonly fetch?: unknown;
  readonly signal?: unknown;
  readonly onCheck?: unknown;
}

/**
 * Checks the options of a run and throws a {@link CheckOptionsError} on the first unusable one, in
 * the SDK's one style: `<who>: <option> is <kind>: expected …`. With `flags`, the options are
 * named as the CLI names them (`svc-gateway-check: --timeout is …`); else as `checkGateway`'s.
 *
 * @example
 * validateCheckOptions({ url: 'http://127.0.0.1:8787', token: 't', timeoutMs: 0 });
 * // throws CheckOptionsError: checkGateway: timeoutMs is the number 0: expected a whole number of milliseconds above 0.
 */
export function validateCheckOptions(options: CheckOptionsInput, flags = false): void {
  const name = (
    option:
      | keyof typeof NUMBERS
      | 'url'
      | 'token'
      | 'only'
      | 'callbackHost'
      | 'callbackPort'
      | 'callbackUrl',
  ) =>
    !flags
      ? option
      : option.startsWith('callback')
        ? `--callback-${option.slice('callback'.length).toLowerCase()}`
        : option in NUMBERS
          ? NUMBERS[option as keyof typeof NUMBERS]
          : `--${option}`;
  const who = flags ? 'svc-gateway-check' : 'checkGateway';
  // Annotated, so that TypeScript narrows after a call (a function that never returns).
  const refuse: (path: string, value: unknown, expected: string, fromEnv?: boolean) => never = (
    path,
    value,
    expected,
    fromEnv = false,
  ) => refuseOption(who, path, value, expected, fromEnv);
  if (typeof options !== 'object' || options === null)
    refuse('options', options, 'expected { url, token, … }.');
  // Before any value: `{ url, tokn }` is a misspelt token, not a missing one. The CLI builds its
  // options from flags node:util's parseArgs already checked.
  if (!flags) refuseUnknownOptions(who, options, KNOWN_OPTIONS);
  const { url, token } = options;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    refuse(name('url'), url, 'expected an absolute http(s) URL.', !flags);
  }
  if (hasCredentials(url)) {
    refuse(
      name('url'),
      url,
      `expected a URL without credentials (the token goes in ${flags ? '--token' : 'token'}).`,
    );
  }
  // Every route is a path under it, and the report prints it: a query would swallow the path
  // (`/base?key=…/v1/manifest`) and a key held there would be printed.
  if (/[?#]/.test(url)) {
    refuse(
      name('url'),
      url,
      'expected a URL without a query or fragment (routes are paths under it).',
    );
  }
  if (typeof token !== 'string' || token === '') {
    refuse(
      name('token'),
      token,
      flags ? 'expected --token or SVC_GATEWAY_TOKEN.' : 'expected a non-empty string.',
      true,
    );
  }
  if ([...token].some((c) => c <= ' ' || c === '\u007f')) {
    refuse(name('token'), token, 'expected no spaces or control characters.');
  }
  const only = options.only;
  if (
    only !== undefined &&
    typeof only !== 'string' &&
    !(Array.isArray(only) && only.every((p) => typeof p === 'string'))
  ) {
    refuse(name('only'), only, 'expected a pattern or a list of patterns.');
  }
  const { callbackHost, callbackPort, callbackUrl } = options;
  if (callbackHost !== undefined && !isCallbackHost(callbackHost)) {
    refuse(
      name('callbackHost'),
      callbackHost,
      `expected a host name or an IP address (IPv6 in brackets), without a scheme, path or port (the port goes in ${name('callbackPort')}).`,
    );
  }
  if (callbackPort !== undefined) {
    if (
      !Number.isSafeInteger(callbackPort) ||
      (callbackPort as number) < 1 ||
      (callbackPort as number) > 65_535
    )
      refuse(name('callbackPort'), callbackPort, 'expected a port number from 1 to 65535.');
    if (
      (callbackHost === undefined || callbackHost === '') &&
      (callbackUrl === undefined || callbackUrl === '')
    )
      refuse(
        name('callbackPort'),
        callbackPort,
        `expected ${name('callbackHost')} or ${name('callbackUrl')} with it (the address the gateway reaches it on).`,
      );
  }
  if (callbackUrl !== undefined) {
    const problem = callbackUrlProblem(callbackUrl);
    if (problem) refuse(name('callbackUrl'), callbackUrl, problem);
    // A proxy or tunnel is set up to forward to one port: a port picked at each run would never
    // get the callback, and the gateway would be blamed for it.
    if (callbackUrl !== '' && callbackPort === undefined)
      refuse(
        name('callbackUrl'),
        callbackUrl,
        `expected ${name('callbackPort')} with it (the local port the proxy or tunnel forwards to).`,
      );
  }
  for (const option of Object.keys(NUMBERS) as (keyof typeof NUMBERS)[]) {
    const value = options[option];
    if (value === undefined) continue;
    if (option === 'maxActions') {
      if (!Number.isSafeInteger(value) || (value as number) <= 0)
        refuse(name(option), value, 'expected a whole number above 0.');
      // A duration a timer waits for: a longer one would fire at once.
    } else if (!isWholeMs(value)) refuse(name(option), value, WHOLE_MS);
  }
  for (const option of FUNCTIONS) {
    if (options[option] !== undefined && typeof options[option] !== 'function')
      refuse(option, options[option], 'expected a function.');
  }
  if (options.allowWrites !== undefined && typeof options.allowWrites !== 'boolean')
    refuse('allowWrites', options.allowWrites, 'expected true or false.');
  const signal = options.signal as { aborted?: unknown } | undefined;
  if (signal !== undefined && (typeof signal !== 'object' || typeof signal?.aborted !== 'boolean'))
    refuse('signal', signal, 'expected an AbortSignal.');
}
