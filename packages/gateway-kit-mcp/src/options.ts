import type { Gateway } from '@svc/gateway-kit';
import { McpConfigError } from './mcp-config-error.ts';

/** How a tool call waits for what the gateway answers later (a job, an approval decision). */
export interface McpCallOptions {
  /**
   * Path prefix the gateway is mounted under (its `basePath`, e.g. `/gateway`). Tool calls are sent
   * to `{basePath}/v1/invoke`. Defaults to none.
   */
  readonly basePath?: string;
  /**
   * How long one tool call waits for an async job to finish, or for an operator to decide an
   * approval (and the approved job to finish), before it answers with the job or approval to follow
   * over the gateway contract. Defaults to 30 000 ms; `0` answers at once.
   */
  readonly waitMs?: number;
  /** Longest pause between two reads of a job or approval while waiting. Defaults to 1 000 ms. */
  readonly pollIntervalMs?: number;
  /**
   * For a task-augmented call (MCP tasks): the longest TTL granted to a task (a client's shorter
   * `ttl` wins, at least 1 s). The task follows its job or approval until 1 s before its TTL ends,
   * then stores its result (the job still running, if so) and keeps it for its TTL again.
   * Defaults to 600 000 ms (10 min).
   */
  readonly taskTtlMs?: number;
}

/**
 * Every key of {@link McpCallOptions}, for the factories' lists of known options: a key added to
 * the interface without one here (or one here the interface lacks) fails the typecheck.
 */
export const CALL_OPTION_KEYS: { readonly [Key in keyof McpCallOptions]-?: true } = {
  basePath: true,
  waitMs: true,
  pollIntervalMs: true,
  taskTtlMs: true,
};

/** The resolved call options. */
export interface CallSettings {
  readonly basePath: string;
  readonly waitMs: number;
  readonly pollIntervalMs: number;
  readonly taskTtlMs: number;
}

/** Defaults of {@link McpCallOptions}. */
const CALL_DEFAULTS: CallSettings = {
  basePath: '',
  waitMs: 30_000,
  pollIntervalMs: 1_000,
  taskTtlMs: 600_000,
};

/** The longest `waitMs` accepted: 10 minutes (an MCP client keeps a request open that long at most). */
const MAX_WAIT_MS = 600_000;

/**
 * What an option value is, for an error message: its kind, never its content; a number is shown
 * unless `hidden` (the token, a URL: a number there may be the token). A documented copy of
 * `@svc/gateway-kit`'s internal `describeKind` (this package uses only gateway-kit's public API),
 * reduced to what MCP options can hold.
 */
function kindOf(value: unknown, hidden: boolean): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    return hidden ? 'a number' : `the number ${value}`;
  }
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Throws the `McpConfigError` `<factory>: <path> is <kind>: <what to do>`: the message style of
 * every factory of the SDK (`createGateway: auth.tokens[0] is undefined: …`). For a string option
 * (`fromEnv`: the token, a URL), an undefined or empty value most likely comes from an unset
 * environment variable: says so, as the kit does; and a number there is not shown.
 */
export function refuse(
  factory: string,
  path: string,
  value: unknown,
  expected: string,
  fromEnv = false,
): never {
  const hint =
    fromEnv && (value === undefined || value === '')
      ? `is an environment variable unset? (${expected.replace(/\.$/, '')})`
      : expected;
  throw new McpConfigError(`${factory}: ${path} is ${kindOf(value, fromEnv)}: ${hint}`);
}

/** Most unknown keys one message names: a whole `process.env` passed by mistake stays one line. */
const MAX_NAMED_KEYS = 5;
/** Longest unknown key named as is. */
const MAX_KEY_LENGTH = 64;

const quoteKey = (key: string): string =>
  JSON.stringify(key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key);

/**
 * Checks that `options` (at `path`, e.g. `sessions`, or the factory's own options when `path` is
 * `options`) is an object holding only the keys of `known`. Throws the `McpConfigError`
 * `<factory>: unknown option "x" (known: a, b).` (after `<path>: ` for a nested object), the
 * style of `createGateway`'s own: a misspelt option would otherwise silently keep its default.
 * Names keys, never their values (an option may hold a token).
 */
export function checkOptionKeys(
  factory: string,
  path: string,
  options: unknown,
  known: readonly string[],
  expected: string,
): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refuse(factory, path, options, expected);
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.slice(0, MAX_NAMED_KEYS).map(quoteKey).join(', ');
  const more =
    unknown.length > MAX_NAMED_KEYS ? ` and ${unknown.length - MAX_NAMED_KEYS} more` : '';
  const where = path === 'options' ? '' : `${path}: `;
  throw new McpConfigError(
    `${factory}: ${where}unknown option${unknown.length > 1 ? 's' : ''} ${named}${more} (known: ${known.join(', ')}).`,
  );
}

/**
 * Checks the `gateway` argument is a gateway made by `createGateway` (what the factory calls:
 * `fetch`, `authenticate` and `manifest`), so a missing or wrong one is refused when the factory
 * is called rather than as a `TypeError` on the first request. `usage` shows the call, e.g.
 * `createMcpHandler(gateway, options?)`.
 */
export function checkGateway(
  factory: string,
  gateway: unknown,
  usage: string,
): asserts gateway is Gateway {
  const candidate = gateway as Partial<Record<keyof Gateway, unknown>> | null | undefined;
  const manifest = candidate?.manifest as { actions?: unknown } | null | undefined;
  if (
    typeof gateway === 'object' &&
    gateway !== null &&
    typeof candidate?.fetch === 'function' &&
    typeof candidate.authenticate === 'function' &&
    typeof manifest === 'object' &&
    manifest !== null &&
    Array.isArray(manifest.actions)
  )
    return;
  refuse(
    factory,
    'gateway',
    gateway,
    `expected a gateway made by createGateway() from @svc/gateway-kit, as the first argument: ${usage}.`,
  );
}

/** Checks `value` is a whole number (milliseconds, bytes, a count) in `[min, max]`, naming `name` otherwise. */
export function checkWhole(
  factory: string,
  name: string,
  value: number | undefined,
  min: number,
  max: number,
): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    refuse(factory, name, value, `expected a whole number from ${min} to ${max}.`);
  }
}

/** Resolves and checks {@link McpCallOptions}. */
export function callSettings(options: McpCallOptions, factory: string): CallSettings {
  checkWhole(factory, 'waitMs', options.waitMs, 0, MAX_WAIT_MS);
  checkWhole(factory, 'pollIntervalMs', options.pollIntervalMs, 10, 60_000);
  checkWhole(factory, 'taskTtlMs', options.taskTtlMs, 1_000, 86_400_000);
  const basePath = options.basePath ?? CALL_DEFAULTS.basePath;
  if (basePath !== '' && (!basePath.startsWith('/') || basePath.endsWith('/'))) {
    refuse(
      factory,
      'basePath',
      basePath,
      'expected "/prefix" (no trailing slash), e.g. "/gateway".',
    );
  }
  return {
    basePath,
    waitMs: options.waitMs ?? CALL_DEFAULTS.waitMs,
    pollIntervalMs: options.pollIntervalMs ?? CALL_DEFAULTS.pollIntervalMs,
    taskTtlMs: options.taskTtlMs ?? CALL_DEFAULTS.taskTtlMs,
  };
}
