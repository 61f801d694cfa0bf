import {
  type Approval,
  type ApprovalDecision,
  ApprovalDecisionError,
  type ApprovalListOptions,
  type ApprovalPage,
  type AuthConfig,
  type GatewayApprovals,
  type Principal,
} from '@svc/gateway-kit';
import { GATEWAY_ERRORS } from '@svc/gateway-kit/contract';
import { checkOptionNames } from '@svc/gateway-kit/store';
import {
  buildGatewayObject,
  type GatewayObjectApi,
  type GatewayObjectClass,
  type GatewayObjectSettings,
} from './gateway-object.ts';
import { checkAuth, isConfigError, logRefusal, refusedResponse } from './refused-config.ts';
import { optionChecks } from './time.ts';

/** The Durable Object namespace binding of the gateway's objects (`env.GATEWAY`). */
export interface GatewayNamespace {
  /** The id of the object named `name` (a shard). */
  idFromName(name: string): unknown;
  /** A stub that calls the object with that id. */
  get(id: unknown): GatewayObjectApi;
}

/**
 * Options of {@link createGatewayWorker}: the Durable Object's settings, where its namespace is
 * bound, and which object serves a request.
 *
 * @example
 * const options: GatewayWorkerOptions<Env> = {
 *   gateway: (env) => ({ gateway: { id: 'acme', name: 'Acme' }, actions, auth: { tokens: [env.GATEWAY_TOKEN] } }),
 *   namespace: (env) => env.GATEWAY,
 * };
 */
export interface GatewayWorkerOptions<Env> extends GatewayObjectSettings<Env> {
  /** The Durable Object namespace bound in `wrangler.jsonc` (e.g. `(env) => env.GATEWAY`). */
  readonly namespace: (env: Env) => GatewayNamespace;
  /**
   * The name of the object that serves a request: one object per shard, and everything a
   * principal owns (jobs, approvals, idempotency keys, quotas) must live in one shard. The Worker
   * first authenticates the request with the gateway's own `auth` (static tokens, or your
   * `verify`): requests that do not authenticate all go to one object (`anonymous`), without
   * their `Authorization` header, which answers `401`, so that unknown tokens create no objects
   * and a token is never served there; `shardKey` is called only for an
   * authenticated caller, with its principal. Default: each principal id has its own object.
   */
  readonly shardKey?: (
    request: Request,
    env: Env,
    principal: Principal,
  ) => string | Promise<string>;
}

/** What {@link createGatewayWorker} returns: the Worker's `fetch`, its Durable Object class, and helpers. */
export interface GatewayWorker<Env> {
  /** The Worker's entry: `export default { fetch: worker.fetch }`. */
  readonly fetch: (request: Request, env: Env) => Promise<Response>;
  /** The Durable Object class; export it from the main module under the `class_name` of wrangler.jsonc. */
  readonly GatewayObject: GatewayObjectClass<Env>;
  /**
   * The object name (shard) of a principal under the default `shardKey`, e.g. for
   * {@link GatewayWorker.approvals}.
   */
  shardOfPrincipal(principalId: string): Promise<string>;
  /**
   * Operator access to approvals over the given shards (e.g. one per configured token): `get` and
   * `decide` find the approval's shard; `list` pages through the shards one after the other;
   * `sweep` sweeps every shard (each object's alarm also does, when an approval is due).
   * Pass it to `createApprovalsHandler`.
   */
  approvals(env: Env, shards: readonly string[]): GatewayApprovals;
}

/**
 * Runs a gateway on Cloudflare Workers with its state in Durable Objects: the Worker routes each
 * request to the object of its shard (by default one per bearer token: see docs/cloudflare.md on
 * why not one global object), and that object serves the whole contract from its own storage.
 *
 * Its own options are checked when it is called, at the module's top level: an unknown name
 * (`shardkey`, `stores: { jobs: { maxJob } }`), a value a store would refuse
 * (`stores: { jobs: { maxJobs: -1 } }`) or a `watchIntervalMs` number that is no timer's throws a
 * `GatewayConfigError`, and the Worker does not start. What `gateway(env)` returns, and a
 * `watchIntervalMs` function's answer, are checked by each object (see docs/cloudflare.md).
 *
 * @example
 * // src/worker.ts
 * import { createGatewayWorker } from '@svc/gateway-kit-cloudflare';
 *
 * const worker = createGatewayWorker<Env>({
 *   gateway: (env) => ({
 *     gateway: { id: 'acme', name: 'Acme back office' },
 *     actions: [lookupAccount],
 *     auth: { tokens: [env.GATEWAY_TOKEN] },
 *     callbacks: { signingSecret: env.CALLBACK_SIGNING_SECRET },
 *   }),
 *   namespace: (env) => env.GATEWAY,
 * });
 * export const GatewayObject = worker.GatewayObject;
 * export default { fetch: worker.fetch };
 */
export function createGatewayWorker<Env>(options: GatewayWorkerOptions<Env>): GatewayWorker<Env> {
  // At the module's top level, where a Worker creates it: a mistake here fails the deploy.
  checkOptionNames('createGatewayWorker', options, WORKER_OPTION_NAMES);
  const refuse = optionChecks('createGatewayWorker').refuse;
  for (const name of ['gateway', 'namespace'] as const)
    if (typeof options[name] !== 'function')
      refuse(name, options[name], 'expected a function of env.');
  if (options.shardKey !== undefined && typeof options.shardKey !== 'function')
    refuse('shardKey', options.shardKey, 'expected a function (request, env) => string.');
  const GatewayObject = buildGatewayObject(options, 'createGatewayWorker');
  // The gateway's auth per `env` (bindings are one object per isolate): built and checked once,
  // not per request. A refused configuration is kept too: it answers every request the same.
  const auth = new WeakMap<object, AuthConfig | Error>();
  const authOf = (env: Env): AuthConfig | Error => {
    const key = env as object;
    let config = auth.get(key);
    if (!config) {
      try {
        const checked: unknown = options.gateway(env).auth;
        // Checked before the router reads a token: an unset variable is an `undefined` entry.
        checkAuth(checked);
        config = checked;
      } catch (error) {
        if (!isConfigError(error)) throw error;
        config = error;
      }
      auth.set(key, config);
    }
    return config;
  };
  const shardKey =
    options.shardKey ??
    ((_request: Request, _env: Env, principal: Principal) => shardName(principal.id));
  const stub = (env: Env, shard: string): GatewayObjectApi => {
    const namespace = options.namespace(env);
    return namespace.get(namespace.idFromName(shard));
  };
  const route = async (request: Request, env: Env): Promise<Response> => {
    const config = authOf(env);
    if (config instanceof Error) {
      logRefusal(config);
      return refusedResponse();
    }
    // Authenticated first, whatever the shard key: an unknown token never reaches `shardKey`.
    const principal = await authenticate(config, request);
    if (principal === TIMED_OUT) return unavailable('Authentication did not answer in time.');
    if (principal === undefined) return stub(env, 'anonymous').fetch(withoutCredentials(request));
    return stub(env, await shardKey(request, env, principal)).fetch(request);
  };
  return {
    GatewayObject,
    fetch: async (request, env) => {
      try {
        return await route(request, env);
      } catch (error) {
        // A throwing `gateway(env)`, `shardKey` or namespace, or an object that failed: answer
        // the contract's envelope, never the runtime's text/plain stack.
        console.error('@svc/gateway-kit-cloudflare: request failed', error);
        return isObjectUnavailable(error) ? unavailable() : refusedResponse();
      }
    },
    shardOfPrincipal: shardName,
    approvals: (env, shards) => shardedApprovals(shards.map((shard) => stub(env, shard))),
  };
}

/** The names of {@link GatewayWorkerOptions}: any other is refused (a misspelt one would be ignored). */
const WORKER_OPTION_NAMES: readonly string[] = Object.keys({
  gateway: true,
  namespace: true,
  shardKey: true,
  stores: true,
  watchIntervalMs: true,
} satisfies Record<keyof GatewayWorkerOptions<unknown>, true>);

/**
 * `request` without its `Authorization` header, for the `anonymous` object: it answers `401` (or
 * `404`/`405`, which come first) whatever its own authentication would make of the token, so that
 * a `verify` answering differently in the object never has a caller's work served there.
 */
function withoutCredentials(request: Request): Request {
  const anonymous = new Request(request);
  anonymous.headers.delete('authorization');
  return anonymous;
}

/** The object name of a principal: its id hashed (ids may be long, or personal). */
async function shardName(principalId: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(principalId));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return `principal:${hex}`;
}

/** The bearer token of `Authorization: Bearer <token>` (as the gateway reads it), if any. */
function bearerToken(authorization: string | null): string | undefined {
  if (!authorization || authorization.length < 8) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token.length > 0 ? token : undefined;
}

/** Compares in time that depends only on the presented token's length (as the gateway does). */
function constantTimeEquals(presented: string, expected: string): boolean {
  let difference = presented.length ^ expected.length;
  for (let i = 0; i < presented.length; i++)
    difference |= presented.charCodeAt(i) ^ expected.charCodeAt(i % expected.length);
  return difference === 0;
}

/** How long the Worker waits for `auth.verify`: the gateway's own budget for it. */
const VERIFY_TIMEOUT_MS = 10_000;
/** What {@link authenticate} answers when `verify` did not settle within its budget. */
const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `503 unavailable` (retryable) in the contract's envelope, as the object would answer it: for a
 * `verify` that did not answer in time, and for an object the platform failed
 * ({@link isObjectUnavailable}), with the catalogue's message unless told otherwise.
 */
function unavailable(message: string = GATEWAY_ERRORS.unavailable.message): Response {
  const { status, retryable } = GATEWAY_ERRORS.unavailable;
  return Response.json(
    { error: { code: 'unavailable', message, retryable } },
    { status, headers: { 'cache-control': 'no-store' } },
  );
}

/**
 * Whether `error` is Durable Objects' infrastructure failing, not the object's code: Cloudflare
 * marks such errors `retryable` (the object was reset, moved or lost its connection) or
 * `overloaded` (too many requests queued at one object), and errors thrown by the object's own
 * code `remote`. The caller's request did not fail, the platform did for a while: it is the
 * contract's `503 unavailable`, as a store outage is in the gateway.
 */
function isObjectUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { remote, retryable, overloaded } = error as Record<string, unknown>;
  return remote !== true && (retryable === true || overloaded === true);
}

/** `pending`, or {@link TIMED_OUT} once `ms` passed first (the timer is cleared either way). */
function within<T>(pending: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([pending, expiry]).finally(() => clearTimeout(timer));
}

/**
 * The principal the gateway will see for `request`, or `undefined` when it does not
 * authenticate: the static tokens compared like the gateway compares them (a bare token is the
 * principal `default`), or the gateway's own `verify` within the gateway's budget for it (10 s;
 * {@link TIMED_OUT} past it). `config` has passed {@link checkAuth}.
 */
async function authenticate(
  config: AuthConfig,
  request: Request,
): Promise<Principal | undefined | typeof TIMED_OUT> {
  const token = bearerToken(request.headers.get('authorization'));
  if (token === undefined) return undefined;
  if ('verify' in config) {
    // A `verify` that throws is answered here as the gateway answers it (500 internal_error, by
    // the caller of `route`): routed as a refusal, an object whose own call succeeds would serve
    // the caller from the anonymous object, out of reach of its own.
    const principal = await within(
      Promise.resolve(
        config.verify(token, { header: (name) => request.headers.get(name) ?? undefined }),
      ),
      VERIFY_TIMEOUT_MS,
    );
    if (principal === TIMED_OUT) return TIMED_OUT;
    return principal && typeof principal.id === 'string' ? principal : undefined;
  }
  let matched: Principal | undefined;
  for (const entry of config.tokens) {
    const [expected, principal] =
      typeof entry === 'string' ? [entry, DEFAULT_PRINCIPAL] : [entry.token, entry.principal];
    if (constantTimeEquals(token, expected) && matched === undefined) matched = principal;
  }
  return matched;
}

const DEFAULT_PRINCIPAL: Principal = Object.freeze({ id: 'default' });

/** Cursor of a sharded page: which shard, and that shard's own cursor. */
function encodeCursor(shard: number, cursor: string | undefined): string {
  return cursor === undefined ? `${shard}` : `${shard}~${cursor}`;
}

function shardedApprovals(objects: readonly GatewayObjectApi[]): GatewayApprovals {
  const find = async (
    approvalId: string,
  ): Promise<{ object: GatewayObjectApi; approval: Approval } | undefined> => {
    const found = await Promise.all(objects.map((object) => object.getApproval(approvalId)));
    const index = found.findIndex((approval) => approval !== undefined);
    const object = objects[index];
    const approval = found[index];
    return object && approval ? { object, approval } : undefined;
  };
  return {
    list: async (listOptions: ApprovalListOptions = {}): Promise<ApprovalPage> => {
      let shard = 0;
      let cursor: string | undefined;
      if (listOptions.cursor !== undefined) {
        const [head, ...rest] = listOptions.cursor.split('~');
        shard = Number(head);
        if (!Number.isInteger(shard) || shard < 0 || shard >= objects.length)
          throw new RangeError('approvals.list: cursor is not a nextCursor this gateway returned.');
        cursor = rest.length > 0 ? rest.join('~') : undefined;
      }
      const object = objects[shard];
      if (!object) return [];
      const { cursor: _ignored, ...rest } = listOptions;
      const page = await object.listApprovals(cursor === undefined ? rest : { ...rest, cursor });
      const next =
        page.nextCursor !== undefined
          ? encodeCursor(shard, page.nextCursor)
          : shard + 1 < objects.length
            ? encodeCursor(shard + 1, undefined)
            : undefined;
      return next === undefined
        ? page.approvals
        : Object.assign(page.approvals, { nextCursor: next });
    },
    get: async (approvalId) => (await find(approvalId))?.approval,
    decide: async (approvalId: string, decision: ApprovalDecision) => {
      const found = await find(approvalId);
      if (!found) throw new ApprovalDecisionError('approval_not_found');
      const answer = await found.object.decideApproval(approvalId, decision);
      if (!answer.ok) throw new ApprovalDecisionError(answer.code, answer.status);
      return answer.job === undefined
        ? { approval: answer.approval }
        : { approval: answer.approval, job: answer.job };
    },
    sweep: async () => {
      const touched = await Promise.all(objects.map((object) => object.sweepApprovals()));
      return touched.reduce((sum, count) => sum + count, 0);
    },
  };
}
