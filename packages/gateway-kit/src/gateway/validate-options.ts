import { CallbackConfigError } from '../callbacks/callback-config-error.ts';
import { validateDeliverySettings } from '../callbacks/deliver-callback.ts';
import { BASE_PATH } from '../http/routes.ts';
import { warnAboutUnpublishedChecks } from '../manifest/schema-lint.ts';
import type { GatewayHookName } from '../observe/hooks.ts';
import { type Refuse, refusalFor } from '../runtime/config-refusal.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { DEFAULT_LIMITS, DEFAULT_QUOTAS, MAX_TIMER_MS } from '../runtime/limits.ts';
import { consoleLogger, type GatewayLogger } from '../runtime/logger.ts';
import type { GatewayOptions } from './gateway-options.ts';
import { validateAuth } from './validate-auth.ts';

const ACTION_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
const VERSION = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const OPTION_NAMES = [
  'gateway',
  'agent',
  'actions',
  'auth',
  'version',
  'basePath',
  'maxBodyBytes',
  'limits',
  'quotas',
  'logger',
  'hooks',
  'tracer',
  'jobStore',
  'recordStore',
  'idempotencyTtlMs',
  'approvals',
  'callbacks',
  'waitUntil',
  'now',
] as const satisfies readonly (keyof GatewayOptions)[];
// Every option of GatewayOptions must be listed, or it would be refused as unknown at runtime:
// this line stops compiling, naming the missing key, when one is added to the interface only.
type UnlistedOption = Exclude<keyof GatewayOptions, (typeof OPTION_NAMES)[number]>;
const everyOptionListed: [UnlistedOption] extends [never] ? true : UnlistedOption = true;
void everyOptionListed;
const JOB_STORE_METHODS = ['create', 'get', 'update', 'requestCancel', 'onCancel', 'close'];
const RECORD_STORE_METHODS = [
  'create',
  'get',
  'replace',
  'delete',
  'addToSet',
  'removeFromSet',
  'rangeOfSet',
  'close',
];

const refuse: Refuse = refusalFor('createGateway');

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function requireString(path: string, value: unknown, expected = 'expected a non-empty string.') {
  if (typeof value !== 'string' || value.trim() === '') refuse(path, value, expected, true);
}

function optionalFunction(path: string, value: unknown) {
  if (value !== undefined && typeof value !== 'function')
    refuse(path, value, 'expected a function.');
}

function positiveMs(path: string, value: unknown) {
  if (
    value !== undefined &&
    !(typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMER_MS)
  ) {
    refuse(path, value, `expected a positive number of milliseconds up to ${MAX_TIMER_MS}.`);
  }
}

const HOOK_NAMES = [
  'onInvokeReceived',
  'onInvokeAnswered',
  'onJobStateChanged',
  'onApprovalRequested',
  'onApprovalDecided',
  'onCallbackDelivered',
  'onCallbackFailed',
] as const satisfies readonly GatewayHookName[];

/** `hooks`: known hook names only, each a function; `slowHookMs` a positive duration. */
function validateHooks(hooks: unknown): void {
  if (hooks === undefined) return;
  if (!isObject(hooks)) refuse('hooks', hooks, `expected { ${HOOK_NAMES.join('?, ')}? }.`);
  for (const [name, hook] of Object.entries(hooks)) {
    if (name === 'slowHookMs') positiveMs('hooks.slowHookMs', hook);
    else if ((HOOK_NAMES as readonly string[]).includes(name))
      optionalFunction(`hooks.${name}`, hook);
    else
      fail(`createGateway: hooks.${name} is not a known hook (known: ${HOOK_NAMES.join(', ')}).`);
  }
}

function store(path: string, value: unknown, methods: readonly string[], kind: string) {
  if (value === undefined) return;
  const missing = isObject(value)
    ? methods.filter((method) => typeof value[method] !== 'function')
    : methods;
  if (missing.length > 0) {
    refuse(path, value, `expected a ${kind} (missing ${missing.join(', ')}).`);
  }
}

function validateActions(actions: unknown): void {
  if (!Array.isArray(actions)) {
    refuse('actions', actions, 'expected an array of defineAction() results.');
  }
  const ids = new Set<string>();
  const names = new Set<string>();
  actions.forEach((action: unknown, index) => {
    const path = `actions[${index}]`;
    if (!isObject(action) || typeof action.run !== 'function' || typeof action.id !== 'string') {
      refuse(path, action, 'expected a defineAction() result.');
    }
    const id = action.id;
    if (!ACTION_ID.test(id)) fail(`Action "${id}": id must match ${ACTION_ID}.`);
    if (ids.has(id)) fail(`Duplicate action id "${id}".`);
    if (names.has(action.name as string)) fail(`Duplicate action name "${action.name}".`);
    ids.add(id);
    names.add(action.name as string);
    // Timers hold at most 2^31-1 ms (≈ 24.8 days); longer ones fire at once.
    const timeoutMs = action.timeoutMs;
    if (
      typeof timeoutMs !== 'number' ||
      !Number.isFinite(timeoutMs) ||
      timeoutMs <= 0 ||
      timeoutMs > MAX_TIMER_MS
    ) {
      fail(
        `Action "${id}": timeoutMs must be a positive number of milliseconds up to ${MAX_TIMER_MS}.`,
      );
    }
  });
}

function fail(message: string): never {
  throw new GatewayConfigError(message);
}

/** `limits` / `quotas`: known names only, each a positive integer. */
function budgets(group: string, values: unknown, known: object): void {
  if (values === undefined) return;
  if (!isPlainObject(values))
    refuse(group, values, `expected { ${Object.keys(known).join(', ')} }.`);
  for (const [name, value] of Object.entries(values)) {
    if (!(name in known))
      throw new GatewayConfigError(
        `createGateway: ${group}.${name} is not a known ${group} option (known: ${Object.keys(known).join(', ')}).`,
      );
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0))
      refuse(`${group}.${name}`, value, 'expected a positive integer.');
  }
}

function validateCallbacks(callbacks: unknown): void {
  if (callbacks === undefined || callbacks === false) return;
  if (!isPlainObject(callbacks)) {
    refuse(
      'callbacks',
      callbacks,
      'expected false or an options object such as { signingSecret, urlPolicy } (the gateway creates its own dispatcher).',
    );
  }
  // Present but undefined: an unset environment variable would silently send unsigned callbacks.
  if ('signingSecret' in callbacks) {
    requireString('callbacks.signingSecret', callbacks.signingSecret, 'expected "whsec_<base64>".');
  }
  if (callbacks.urlPolicy !== undefined && !isPlainObject(callbacks.urlPolicy)) {
    refuse(
      'callbacks.urlPolicy',
      callbacks.urlPolicy,
      'expected { allowInsecureLoopback?, allowHosts? }.',
    );
  }
  for (const name of ['resolveHost', 'fetch', 'onDeliveryFailed', 'onAttempt']) {
    optionalFunction(`callbacks.${name}`, callbacks[name]);
  }
  try {
    validateDeliverySettings(callbacks);
  } catch (error) {
    if (!(error instanceof CallbackConfigError)) throw error;
    // Same message (it never contains the value), with the option's full path.
    fail(`createGateway: callbacks.${error.message}`);
  }
}

/**
 * Checks `createGateway`'s options before anything is built, also for JavaScript callers: a
 * mistake throws {@link GatewayConfigError} naming the exact path and what was received
 * (`createGateway: auth.tokens[1] is undefined: …`), never a configured value.
 *
 * @example
 * validateOptions({ gateway: { id: 'g', name: 'G' }, actions: [], auth: { tokens: [''] } });
 * // GatewayConfigError: createGateway: auth.tokens[0] is an empty string: is an environment variable unset? (expected a non-empty token string)
 */
export function validateOptions(options: GatewayOptions): void {
  if (!isObject(options)) refuse('options', options, 'expected an options object.');
  const unknown = Object.keys(options).filter(
    (key) => !(OPTION_NAMES as readonly string[]).includes(key),
  );
  if (unknown.length > 0) {
    fail(
      `createGateway: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')} (known: ${OPTION_NAMES.join(', ')}).`,
    );
  }
  const gateway: unknown = options.gateway;
  if (!isObject(gateway)) refuse('gateway', gateway, 'expected { id, name, url? }.');
  requireString('gateway.id', gateway.id);
  requireString('gateway.name', gateway.name);
  if (gateway.url !== undefined) {
    const url = gateway.url;
    if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      refuse('gateway.url', url, 'expected an absolute http(s) URL.', true);
    }
  }
  const agent: unknown = options.agent;
  if (agent !== undefined) {
    if (!isObject(agent)) refuse('agent', agent, 'expected { id, name, description? }.');
    requireString('agent.id', agent.id);
    requireString('agent.name', agent.name);
    if (agent.description !== undefined && typeof agent.description !== 'string') {
      refuse('agent.description', agent.description, 'expected a string.');
    }
  }
  validateAuth(options.auth, 'createGateway');
  validateActions(options.actions);
  if (options.version !== undefined && !VERSION.test(String(options.version))) {
    refuse('version', options.version, 'expected a date, YYYY-MM-DD.');
  }
  if (options.basePath !== undefined && !BASE_PATH.test(String(options.basePath))) {
    refuse('basePath', options.basePath, 'expected "/prefix" (no trailing slash).');
  }
  positiveMs('idempotencyTtlMs', options.idempotencyTtlMs);
  const approvals: unknown = options.approvals;
  if (approvals !== undefined) {
    if (!isObject(approvals))
      refuse(
        'approvals',
        approvals,
        'expected { policy?, ttlMs?, retentionMs?, sweepIntervalMs? }.',
      );
    optionalFunction('approvals.policy', approvals.policy);
    positiveMs('approvals.ttlMs', approvals.ttlMs);
    positiveMs('approvals.retentionMs', approvals.retentionMs);
    if (approvals.sweepIntervalMs !== 0)
      positiveMs('approvals.sweepIntervalMs', approvals.sweepIntervalMs);
  }
  budgets('limits', options.limits, DEFAULT_LIMITS);
  budgets('quotas', options.quotas, DEFAULT_QUOTAS);
  const maxBodyBytes: unknown = options.maxBodyBytes;
  if (
    maxBodyBytes !== undefined &&
    !(typeof maxBodyBytes === 'number' && Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)
  ) {
    refuse('maxBodyBytes', maxBodyBytes, 'expected a positive integer.');
  }
  const logger: unknown = options.logger;
  if (logger !== undefined && (!isObject(logger) || typeof logger.error !== 'function')) {
    refuse('logger', logger, 'expected { error(message, fields), warn?, info?, debug? }.');
  }
  if (isObject(logger))
    for (const level of ['warn', 'info', 'debug'])
      optionalFunction(`logger.${level}`, logger[level]);
  validateHooks(options.hooks);
  const tracer: unknown = options.tracer;
  if (tracer !== undefined && (!isObject(tracer) || typeof tracer.startSpan !== 'function'))
    refuse('tracer', tracer, 'expected an OpenTelemetry Tracer (trace.getTracer(name)).');
  store('jobStore', options.jobStore, JOB_STORE_METHODS, 'JobStore');
  store('recordStore', options.recordStore, RECORD_STORE_METHODS, 'RecordStore');
  validateCallbacks(options.callbacks);
  optionalFunction('waitUntil', options.waitUntil);
  optionalFunction('now', options.now);
  warnAboutUnpublishedChecks(
    options.actions,
    (logger as GatewayLogger | undefined) ?? consoleLogger,
  );
}
