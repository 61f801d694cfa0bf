import { ApprovalService } from '../approvals/approval-service.ts';
import { createAuthenticator } from '../auth/bearer-auth.ts';
import type { Principal } from '../auth/principal.ts';
import {
  CallbackDispatcher,
  type CallbackDispatcherOptions,
} from '../callbacks/callback-dispatcher.ts';
import { CALLBACK_DELIVERY_DEFAULTS } from '../callbacks/deliver-callback.ts';
import { attemptBudget } from '../callbacks/outbox-delivery.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { ApprovalDecision, ApprovalListOptions } from '../contract/approval.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { hostMatcher, namesAllowedHosts } from '../http/host-names.ts';
import { errorReply, jsonReply } from '../http/replies.ts';
import { matchRoute } from '../http/routes.ts';
import { handleCancelJob, handleGetJob } from '../jobs/job-routes.ts';
import { notifyJobFinished, resumeJob } from '../jobs/job-runner.ts';
import { buildManifest, inputJsonSchema, type ManifestInit } from '../manifest/build-manifest.ts';
import { createManifestRoute } from '../manifest/manifest-route.ts';
import { createObserver } from '../observe/observer.ts';
import { MemoryRecordStore } from '../records/memory-record-store.ts';
import { isRecordStoreFullError } from '../records/record-store-full-error.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { InvokesInFlight } from '../runtime/invokes-in-flight.ts';
import { DEFAULT_LIMITS, DEFAULT_QUOTAS, VERIFY_TIMEOUT_MS } from '../runtime/limits.ts';
import { consoleLogger, type GatewayLogger, logWarning } from '../runtime/logger.ts';
import { TIMED_OUT, withinBudget } from '../runtime/time-budget.ts';
import type { JobStore } from '../store/job-store.ts';
import { isJobStoreFullError } from '../store/job-store-full-error.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { isStoreUnavailableError } from '../store/store-errors.ts';
import type { Authentication, Gateway, GatewayOptions } from './gateway-options.ts';
import {
  CALLBACK_DEFAULTS,
  type CallbackRuntimeDefaults,
  HANDLE_CALL,
  RESPOND,
  type Respond,
} from './handle-call.ts';
import { handleInvoke } from './invoke.ts';
import { validateOptions } from './validate-options.ts';
import { fromWebRequest, toWebResponse } from './web-call.ts';

/** How often pending approvals that no instance expired on time are looked for. */
const APPROVAL_SWEEP_MS = 5_000;

/**
 * Creates a gateway serving Gateway Contract v1 from a list of actions. The configuration is
 * checked now, and the manifest computed once; a mistake throws {@link GatewayConfigError}.
 *
 * @example
 * const gateway = createGateway({
 *   gateway: { id: 'acme', name: 'Acme back office', url: 'https://gateway.acme.example' },
 *   actions: [lookupAccount],
 *   auth: { tokens: [process.env.GATEWAY_TOKEN!] },
 * });
 * export default { fetch: gateway.fetch };
 */
export function createGateway(options: GatewayOptions): Gateway {
  validateOptions(options);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? consoleLogger;
  const basePath = options.basePath ?? '';
  const actions = [...options.actions];
  const inputSchemas = actions.map(inputJsonSchema);
  const hasApprovals =
    actions.some((action) => action.requiresApproval) || options.approvals?.policy !== undefined;
  const asyncJobs = hasApprovals || actions.some((action) => action.executionMode === 'async');
  const callbacksOn = options.callbacks !== false;
  const manifestInit = {
    version: options.version ?? new Date(now()).toISOString().slice(0, 10),
    gateway: { id: options.gateway.id, name: options.gateway.name, url: options.gateway.url ?? '' },
    agent: {
      id: options.agent?.id ?? options.gateway.id,
      name: options.agent?.name ?? options.gateway.name,
      description: options.agent?.description ?? '',
    },
    actions,
    capabilities: { asyncJobs, jobCallbacks: asyncJobs && callbacksOn, approvals: hasApprovals },
  } satisfies ManifestInit;
  const manifest = buildManifest(manifestInit, inputSchemas);
  const manifestRoute = createManifestRoute(
    manifest,
    options.gateway.url === undefined ? basePath : undefined,
  );
  const authenticate = createAuthenticator(options.auth);

  const inFlight = new Set<Promise<unknown>>();
  const track = (
    work: Promise<unknown>,
    requestWaitUntil?: (work: Promise<unknown>) => void,
  ): void => {
    const settled = work.then(
      () => {},
      () => {},
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
    options.waitUntil?.(settled);
    requestWaitUntil?.(settled);
  };
  const callbackSettings: CallbackDispatcherOptions =
    options.callbacks === false ? {} : (options.callbacks ?? {});
  const ownsJobStore = options.jobStore === undefined;
  const ownsRecordStore = options.recordStore === undefined;
  const closing = new AbortController();
  const jobs: JobStore = options.jobStore ?? new MemoryJobStore({ now });
  // Computed once: without hooks and tracer it is undefined and every call site skips it.
  const observer = createObserver({
    hooks: options.hooks,
    tracer: options.tracer,
    logger,
    background: (work) => track(work),
    now,
  });
  // A shared job store's outbox makes callbacks survive this instance.
  const callbackOutbox = callbacksOn
    ? 'outbox' in callbackSettings
      ? callbackSettings.outbox
      : jobs.callbackOutbox
    : undefined;
  warnOnShortLease(callbackOutbox?.leaseMs, callbackSettings.attemptTimeoutMs, logger);
  const quotas = { ...DEFAULT_QUOTAS, ...definedOnly(options.quotas) };
  const runtime: GatewayRuntime = {
    closing: closing.signal,
    actionsById: new Map(actions.map((action) => [action.id, action])),
    actionsByName: new Map(actions.map((action) => [action.name, action])),
    jobs,
    records: options.recordStore ?? new MemoryRecordStore({ now }),
    callbacks: callbacksOn
      ? new CallbackDispatcher({
          ...callbackSettings,
          outbox: callbackOutbox,
          onDeliveryFailed:
            callbackSettings.onDeliveryFailed ??
            ((failure) =>
              logWarning(logger, 'callback not delivered', {
                webhookId: failure.webhookId,
                target: failure.target,
                ...(failure.principal === undefined ? {} : { principal: failure.principal }),
                reason: failure.result.reason,
              })),
          waitUntil: (work) => track(work),
          ...(observer?.tracesCallbacks
            ? { wrapFetch: (fetch, delivery) => observer.traceAttempts(fetch, delivery) }
            : {}),
        })
      : undefined,
    callbackUrlPolicy: callbackSettings.urlPolicy ?? {},
    approvalPolicy: options.approvals?.policy,
    approvalTtlMs: options.approvals?.ttlMs ?? 15 * 60 * 1000,
    idempotencyTtlMs: options.idempotencyTtlMs ?? 24 * 60 * 60 * 1000,
    maxBodyBytes: options.maxBodyBytes ?? 256 * 1024,
    limits: { ...DEFAULT_LIMITS, ...definedOnly(options.limits) },
    quotas,
    invokesInFlight: new InvokesInFlight(quotas.concurrentInvokes),
    approvalRetentionMs: options.approvals?.retentionMs ?? 24 * 60 * 60 * 1000,
    logger,
    observer,
    now,
    baseUrl: (requestBase) =>
      options.gateway.url?.replace(/\/+$/, '') ?? `${requestBase}${basePath}`,
    background: track,
  };
  const approvalService = new ApprovalService(
    runtime,
    hasApprovals ? (options.approvals?.sweepIntervalMs ?? APPROVAL_SWEEP_MS) : 0,
  );
  // A job the store failed on its own (its worker died) is finished like any other: call back.
  const stopWorkerLost = runtime.jobs.onWorkerLost?.((job) =>
    runtime.background(notifyJobFinished(runtime, job)),
  );
  // A job an earlier instance left unfinished (a restarted Durable Object): run it, or fail it.
  const stopOrphaned = runtime.jobs.onOrphaned?.((job) => resumeJob(runtime, job));

  // `loopbackOnly`: the host names a request may name (loopback ones, plus `allowedHosts`).
  const loopbackOnly = options.loopbackOnly;
  const hostAllowed = loopbackOnly
    ? hostMatcher(loopbackOnly === true ? undefined : loopbackOnly.allowedHosts)
    : undefined;

  const unauthorized = (): GatewayReply =>
    errorReply('unauthorized', undefined, { 'www-authenticate': 'Bearer' });

  /**
   * Routes a call: not-found and method answers, authentication, then the route's handler. Not
   * `async`: with static tokens nothing here waits, and each `async` layer would add promise hops
   * to every request. May throw; `handle` turns that into an answer.
   */
  function route(call: GatewayCall): GatewayReply | Promise<GatewayReply> {
    if (hostAllowed && !namesAllowedHosts(hostOf(call), call.header('origin'), hostAllowed))
      return errorReply('forbidden_host');
    let path = call.path;
    if (basePath) {
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return errorReply('not_found');
      path = path.slice(basePath.length);
    }
    const matched = matchRoute(path);
    logger.debug?.('route', { method: call.method, route: matched?.route ?? 'none' });
    if (!matched) return errorReply('not_found');
    if (call.method !== matched.method) {
      return errorReply('method_not_allowed', undefined, { allow: matched.method });
    }
    const authenticated = authenticate(call.header('authorization'), call);
    return authenticated instanceof Promise
      ? withinBudget(authenticated, { budgetMs: VERIFY_TIMEOUT_MS }).then((principal) =>
          // An identity provider that does not answer is a temporary failure, not a refusal.
          principal === TIMED_OUT
            ? errorReply('unavailable', { message: 'Authentication did not answer in time.' })
            : dispatch(call, matched, principal),
        )
      : dispatch(call, matched, authenticated);
  }

  function dispatch(
    call: GatewayCall,
    matched: NonNullable<ReturnType<typeof matchRoute>>,
    principal: Principal | null,
  ): GatewayReply | Promise<GatewayReply> {
    if (!principal) return unauthorized();
    switch (matched.route) {
      case 'invoke':
        return handleInvoke(call, principal, runtime, approvalService);
      case 'manifest':
        return manifestRoute(call);
      case 'job':
        return handleGetJob(runtime, matched.id, principal);
      case 'cancel':
        return handleCancelJob(runtime, matched.id, principal, call);
      case 'approval':
        return approvalService
          .get(matched.id, principal.id)
          .then((approval) =>
            approval ? jsonReply(200, { approval }) : errorReply('approval_not_found'),
          );
    }
  }

  function failed(call: GatewayCall, error: unknown): GatewayReply {
    // A store at capacity or unreachable is temporary: say so, and keep state intact.
    // An unreachable store is an expected outage the store logs once itself: no stack per request.
    if (
      isJobStoreFullError(error) ||
      isRecordStoreFullError(error) ||
      isStoreUnavailableError(error)
    )
      return errorReply('unavailable');
    // Otherwise a bug, a throwing auth.verify or a failing store adapter: answer, never crash.
    logger.error('request failed', { path: call.path, error });
    return errorReply('internal_error', { message: 'The gateway failed unexpectedly.' });
  }

  function handle(call: GatewayCall): Promise<GatewayReply> {
    let routed: GatewayReply | Promise<GatewayReply>;
    try {
      routed = route(call);
    } catch (error) {
      return Promise.resolve(failed(call, error));
    }
    return routed instanceof Promise
      ? routed.then(undefined, (error: unknown) => failed(call, error))
      : Promise.resolve(routed);
  }

  // With hooks or a tracer, each request is served inside the observer (span, invoke events).
  const serve = observer ? (call: GatewayCall) => observer.request(call, handle) : handle;

  /** `handle` in callback form, for the Node adapter: no promise of its own around the route's. */
  const respond: Respond = observer
    ? (call, done) => {
        serve(call).then(done, (error: unknown) => done(failed(call, error)));
      }
    : (call, done) => {
        let routed: GatewayReply | Promise<GatewayReply>;
        try {
          routed = route(call);
        } catch (error) {
          done(failed(call, error));
          return;
        }
        if (routed instanceof Promise)
          routed.then(done, (error: unknown) => done(failed(call, error)));
        else done(routed);
      };

  /** `gateway.authenticate`: the route's authentication step, on its own. */
  async function authenticateRequest(request: Request): Promise<Authentication> {
    const headers = {
      header: (name: string): string | undefined => request.headers.get(name) ?? undefined,
    };
    try {
      const authenticated = authenticate(headers.header('authorization'), headers);
      const principal =
        authenticated instanceof Promise
          ? await withinBudget(authenticated, { budgetMs: VERIFY_TIMEOUT_MS })
          : authenticated;
      if (principal === TIMED_OUT) {
        return refusal(
          errorReply('unavailable', { message: 'Authentication did not answer in time.' }),
        );
      }
      return principal ? { principal } : refusal(unauthorized());
    } catch (error) {
      logger.error('authentication failed', { error });
      return refusal(errorReply('internal_error', { message: 'The gateway failed unexpectedly.' }));
    }
  }

  const gateway = {
    manifest,
    authenticate: authenticateRequest,
    fetch: async (
      request: Request,
      _env?: unknown,
      context?: { waitUntil?(work: Promise<unknown>): void },
    ): Promise<Response> =>
      // A Workers-style execution context keeps the jobs this request starts alive.
      toWebResponse(await serve(fromWebRequest(request, context?.waitUntil?.bind(context)))),
    approvals: {
      list: (listOptions?: ApprovalListOptions) => approvalService.list(listOptions),
      get: (approvalId: string) => approvalService.get(approvalId),
      decide: (approvalId: string, decision: ApprovalDecision) =>
        approvalService.decide(approvalId, decision),
      sweep: () => approvalService.sweepExpired(),
    },
    idle: async (): Promise<void> => {
      if (inFlight.size === 0) return;
      // Background waits (callback retries, store retries) do not keep a process alive on their
      // own; a caller waiting here wants it alive until they end.
      const keepAlive = setInterval(() => {}, 1_000);
      try {
        while (inFlight.size > 0) await Promise.all(inFlight);
      } finally {
        clearInterval(keepAlive);
      }
    },
    close: async (): Promise<void> => {
      closing.abort();
      approvalService.close();
      stopWorkerLost?.();
      stopOrphaned?.();
      observer?.close();
      await runtime.callbacks?.close();
      if (ownsJobStore) await runtime.jobs.close();
      if (ownsRecordStore) await runtime.records.close();
    },
    [HANDLE_CALL]: serve,
    [RESPOND]: respond,
    [CALLBACK_DEFAULTS]: (defaults: CallbackRuntimeDefaults) =>
      runtime.callbacks?.useRuntimeDefaults(defaults(runtime.callbackUrlPolicy)),
  };
  return gateway as Gateway;
}

function refusal(reply: GatewayReply): Authentication {
  return { refusal: toWebResponse(reply) };
}

/** The host a call is addressed to: its `Host` header, else its URL's (HTTP/2 sends none). */
function hostOf(call: GatewayCall): string | undefined {
  const host = call.header('host');
  if (host !== undefined) return host;
  return URL.canParse(call.requestBase) ? new URL(call.requestBase).host : undefined;
}

/** The set entries of a partial options object, without the ones given as `undefined`. */
function definedOnly<T extends object>(values: T | undefined): Partial<T> {
  const defined: Partial<T> = {};
  for (const [key, value] of Object.entries(values ?? {}))
    if (value !== undefined) (defined as Record<string, unknown>)[key] = value;
  return defined;
}

export type {
  Authentication,
  Gateway,
  GatewayApprovals,
  GatewayOptions,
} from './gateway-options.ts';

/**
 * An outbox claim must outlast the attempt made under it, or another instance takes the entry over
 * and sends it again: outbox attempts get at most half of `leaseMs` (see `CallbackOutbox.leaseMs`).
 * Says so once, at start-up, when the configured `attemptTimeoutMs` is longer.
 */
function warnOnShortLease(
  leaseMs: number | undefined,
  attemptTimeoutMs: number | undefined,
  logger: GatewayLogger,
): void {
  if (leaseMs === undefined) return;
  const configured = attemptTimeoutMs ?? CALLBACK_DELIVERY_DEFAULTS.attemptTimeoutMs;
  const allowed = attemptBudget(leaseMs, configured).attemptTimeoutMs;
  if (allowed >= configured) return;
  const message =
    'callbacks.attemptTimeoutMs is longer than half the callback outbox lease: outbox attempts time out sooner';
  const fields = { attemptTimeoutMs: configured, leaseMs, outboxAttemptTimeoutMs: allowed };
  logWarning(logger, message, fields);
}
