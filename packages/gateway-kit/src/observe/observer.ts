import type { Action, Invocation } from '../actions/define-action.ts';
import type { CallbackDelivery, CallbackDispatcher } from '../callbacks/callback-dispatcher.ts';
import type { CallbackDeliveryResult } from '../callbacks/deliver-callback.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { routeTemplate } from '../http/routes.ts';
import { type GatewayLogger, logWarning } from '../runtime/logger.ts';
import { originOf } from '../runtime/origin-of.ts';
import { isPromiseLike } from '../runtime/time-budget.ts';
import { unrefTimer } from '../runtime/timers.ts';
import type { StoredJob } from '../store/job-store.ts';
import type {
  ApprovalDecidedEvent,
  ApprovalRequestedEvent,
  CallbackEvent,
  GatewayHookName,
  GatewayHooks,
  InvokeReceivedEvent,
} from './hooks.ts';
import { outcomeOf } from './outcome.ts';
import {
  type GatewaySpan,
  type GatewayTracer,
  ParentContext,
  SPAN_KIND,
  SPAN_STATUS_ERROR,
} from './tracing.ts';

/** What the observer needs from the gateway. */
export interface ObserverOptions {
  readonly hooks: GatewayHooks | undefined;
  readonly tracer: GatewayTracer | undefined;
  readonly logger: GatewayLogger;
  /** Keeps a hook's pending promise alive (and tracked by `gateway.idle()`). */
  readonly background: (work: Promise<unknown>) => void;
  readonly now: () => number;
}

/** What a callback event needs besides the delivery result. */
export type CallbackIds = Omit<
  CallbackEvent,
  'webhookId' | 'target' | 'attempts' | 'httpStatus' | 'reason'
>;

/** A sync action run: what `runSync` returns. */
interface RunOutcome {
  readonly reply: GatewayReply;
}

interface CallState {
  readonly start: number;
  readonly span: GatewaySpan | undefined;
  invoke?: InvokeReceivedEvent;
}

const DEFAULT_SLOW_HOOK_MS = 5_000;

/**
 * Hooks and spans of a gateway, in one place. Exists only when `hooks` or `tracer` is configured:
 * call sites read `runtime.observer?.…`, so a gateway without either pays nothing.
 */
export class Observer {
  readonly #hooks: GatewayHooks;
  readonly #tracer: GatewayTracer | undefined;
  readonly #logger: GatewayLogger;
  readonly #background: (work: Promise<unknown>) => void;
  readonly #now: () => number;
  readonly #calls = new WeakMap<GatewayCall, CallState>();
  /** Spans of jobs this process started and not yet seen finish. */
  readonly #jobSpans = new Map<string, GatewaySpan>();
  /** Ids of the deliveries in flight, for their attempt spans. */
  readonly #deliveries = new WeakMap<CallbackDelivery, CallbackIds>();

  constructor(options: ObserverOptions) {
    this.#hooks = options.hooks ?? {};
    this.#tracer = options.tracer;
    this.#logger = options.logger;
    this.#background = options.background;
    this.#now = options.now;
  }

  /** Whether callback attempts are traced (the dispatcher then wraps its `fetch`). */
  get tracesCallbacks(): boolean {
    return this.#tracer !== undefined;
  }

  /** Serves one request inside its server span; reports the answer of an invoke. */
  async request(
    call: GatewayCall,
    handle: (call: GatewayCall) => Promise<GatewayReply>,
  ): Promise<GatewayReply> {
    const route = routeTemplate(call.path);
    const span = this.#tracer?.startSpan(`${call.method} ${route}`, {
      kind: SPAN_KIND.server,
      attributes: { 'http.request.method': call.method, 'http.route': route },
    });
    const state: CallState = { start: this.#now(), span };
    this.#calls.set(call, state);
    const reply = await handle(call);
    if (span) {
      span.setAttribute('http.response.status_code', reply.status);
      if (reply.status >= 500) span.setStatus({ code: SPAN_STATUS_ERROR });
    }
    if (state.invoke) {
      const outcome = outcomeOf(reply);
      span?.setAttribute('gateway.outcome', outcome.outcome);
      if (this.#hooks.onInvokeAnswered)
        this.#emit('onInvokeAnswered', {
          ...state.invoke,
          ...outcome,
          httpStatus: reply.status,
          durationMs: this.#now() - state.start,
        });
    }
    span?.end();
    return reply;
  }

  /** An invoke named a known action: its ids go on the request span and to `onInvokeReceived`. */
  invokeReceived(
    call: GatewayCall,
    invocation: Invocation,
    action: Action,
    principalId: string,
  ): void {
    const event: InvokeReceivedEvent = {
      invocationId: invocation.invocationId,
      actionId: action.id,
      actionName: action.name,
      principalId,
      ...(invocation.traceId !== undefined ? { traceId: invocation.traceId } : {}),
    };
    const state = this.#calls.get(call);
    if (state) {
      state.invoke = event;
      state.span?.setAttribute('gateway.invocation.id', event.invocationId);
      state.span?.setAttribute('gateway.action.id', event.actionId);
      if (event.traceId !== undefined) state.span?.setAttribute('gateway.trace_id', event.traceId);
    }
    this.#emit('onInvokeReceived', event);
  }

  /**
   * `run` inside an action span, child of the request's span; `undefined` without a tracer (the
   * caller then runs `run` itself).
   */
  actionRun<T extends RunOutcome>(
    call: GatewayCall,
    action: Action,
    invocation: Invocation,
    run: () => T | Promise<T>,
  ): (() => T | Promise<T>) | undefined {
    const tracer = this.#tracer;
    if (!tracer) return undefined;
    return () => {
      const parent = this.#calls.get(call)?.span;
      const span = tracer.startSpan(
        `action ${action.id}`,
        { kind: SPAN_KIND.internal, attributes: idAttributes(invocation, action.id) },
        parent ? ParentContext.of(parent) : undefined,
      );
      const end = (outcome: T): T => {
        const { outcome: answered, errorCode } = outcomeOf(outcome.reply);
        span.setAttribute('gateway.outcome', answered);
        if (errorCode !== undefined) span.setAttribute('gateway.error.code', errorCode);
        if (answered === 'error') span.setStatus({ code: SPAN_STATUS_ERROR });
        span.end();
        return outcome;
      };
      const failed = (error: unknown): never => {
        span.setStatus({ code: SPAN_STATUS_ERROR }).end();
        throw error;
      };
      let outcome: T | Promise<T>;
      try {
        outcome = run();
      } catch (error) {
        return failed(error);
      }
      return outcome instanceof Promise ? outcome.then(end, failed) : end(outcome);
    };
  }

  /** A job was created and is about to run here: its span starts, `queued` is reported. */
  jobQueued(job: StoredJob): void {
    const invocation = invocationOfJob(job);
    const span = this.#tracer?.startSpan(`job ${job.actionId}`, {
      kind: SPAN_KIND.internal,
      attributes: { ...idAttributes(invocation, job.actionId), 'gateway.job.id': job.jobId },
    });
    if (span) this.#jobSpans.set(job.jobId, span);
    this.#jobChanged(job, invocation);
  }

  /** A job's action started. */
  jobRunning(job: StoredJob): void {
    this.#jobSpans.get(job.jobId)?.setAttribute('gateway.job.status', job.status);
    this.#jobChanged(job, invocationOfJob(job));
  }

  /** A job ended (any way, on any instance that learns of it): its span ends with its status. */
  jobFinished(job: StoredJob): void {
    const span = this.#jobSpans.get(job.jobId);
    if (span) {
      this.#jobSpans.delete(job.jobId);
      span.setAttribute('gateway.job.status', job.status);
      if (job.error) span.setAttribute('gateway.error.code', job.error.code);
      if (job.status === 'failed') span.setStatus({ code: SPAN_STATUS_ERROR });
      span.end();
    }
    this.#jobChanged(job, invocationOfJob(job));
  }

  /**
   * This instance's run of a job stopped. Its span normally ended with the job already; if not
   * (another instance cancelled it, or the runner failed), it ends now, without a final status.
   */
  jobLeft(jobId: string): void {
    this.#jobSpans.get(jobId)?.end();
    this.#jobSpans.delete(jobId);
  }

  /** The job runner itself failed (a bug, a store that kept failing): reported on its span first. */
  jobFailedHere(jobId: string): void {
    this.#jobSpans.get(jobId)?.setStatus({ code: SPAN_STATUS_ERROR });
  }

  approvalRequested(event: ApprovalRequestedEvent): void {
    this.#emit('onApprovalRequested', event);
  }

  approvalDecided(event: ApprovalDecidedEvent): void {
    this.#emit('onApprovalDecided', event);
  }

  /** Dispatches a callback, reporting its outcome to the callback hooks. */
  dispatch(
    callbacks: CallbackDispatcher,
    delivery: CallbackDelivery,
    ids: CallbackIds,
    handedOver?: () => void,
  ): Promise<CallbackDeliveryResult> {
    if (this.#tracer) this.#deliveries.set(delivery, ids);
    const result = callbacks.dispatch(delivery, handedOver);
    if (!this.#hooks.onCallbackDelivered && !this.#hooks.onCallbackFailed) return result;
    return result.then((outcome) => {
      // Left to an outbox: not an outcome yet (retries run from the outbox, on any instance).
      if (!outcome.delivered && outcome.reason === 'queued') return outcome;
      const event: CallbackEvent = {
        ...ids,
        webhookId: delivery.webhookId,
        target: originOf(delivery.url),
        attempts: outcome.attempts,
        ...(outcome.delivered
          ? { httpStatus: outcome.status }
          : {
              reason: outcome.reason,
              ...(outcome.lastStatus !== undefined ? { httpStatus: outcome.lastStatus } : {}),
            }),
      };
      this.#emit(outcome.delivered ? 'onCallbackDelivered' : 'onCallbackFailed', event);
      return outcome;
    });
  }

  /** Wraps the `fetch` of one delivery so that each attempt is a client span. */
  traceAttempts(
    fetch: typeof globalThis.fetch,
    delivery: CallbackDelivery,
  ): typeof globalThis.fetch {
    const tracer = this.#tracer;
    if (!tracer) return fetch;
    const ids = this.#deliveries.get(delivery);
    const target = originOf(delivery.url);
    const attributes: Record<string, string | number> = {
      'http.request.method': 'POST',
      'server.address': target,
      'gateway.webhook_id': delivery.webhookId,
    };
    if (ids) {
      attributes['gateway.invocation.id'] = ids.invocationId;
      attributes['gateway.action.id'] = ids.actionId;
      if (ids.jobId !== undefined) attributes['gateway.job.id'] = ids.jobId;
      if (ids.approvalId !== undefined) attributes['gateway.approval.id'] = ids.approvalId;
    }
    let attempt = 0;
    return (input, init) => {
      attempt += 1;
      const span = tracer.startSpan('POST', {
        kind: SPAN_KIND.client,
        attributes: { ...attributes, 'http.request.resend_count': attempt - 1 },
      });
      return fetch(input, init).then(
        (response) => {
          span.setAttribute('http.response.status_code', response.status);
          if (response.status >= 400) span.setStatus({ code: SPAN_STATUS_ERROR });
          span.end();
          return response;
        },
        (error: unknown) => {
          const name = (error as { name?: unknown } | undefined)?.name;
          span.setAttribute('error.type', typeof name === 'string' ? name : 'Error');
          span.setStatus({ code: SPAN_STATUS_ERROR }).end();
          throw error;
        },
      );
    };
  }

  /** Ends the spans of jobs still open (the gateway is closing). */
  close(): void {
    for (const span of this.#jobSpans.values()) span.end();
    this.#jobSpans.clear();
  }

  #jobChanged(job: StoredJob, invocation: Pick<Invocation, 'traceId'> | undefined): void {
    if (!this.#hooks.onJobStateChanged) return;
    this.#emit('onJobStateChanged', {
      jobId: job.jobId,
      invocationId: job.invocationId,
      actionId: job.actionId,
      principalId: job.ownerId,
      ...(invocation?.traceId !== undefined ? { traceId: invocation.traceId } : {}),
      status: job.status,
      ...(job.error ? { errorCode: job.error.code } : {}),
    });
  }

  /** Calls a hook without waiting for it; logs what it throws, rejects, or keeps pending too long. */
  #emit<K extends GatewayHookName>(
    name: K,
    event: Parameters<NonNullable<GatewayHooks[K]>>[0],
  ): void {
    const hook = this.#hooks[name] as ((event: unknown) => unknown) | undefined;
    if (!hook) return;
    let returned: unknown;
    try {
      returned = hook(event);
    } catch (error) {
      this.#hookFailed(name, error);
      return;
    }
    if (!isPromiseLike(returned)) return;
    const slowMs = this.#hooks.slowHookMs ?? DEFAULT_SLOW_HOOK_MS;
    const timer = setTimeout(() => {
      logWarning(this.#logger, 'hook slow', { hook: name, afterMs: slowMs });
    }, slowMs);
    unrefTimer(timer);
    this.#background(
      Promise.resolve(returned).then(
        () => clearTimeout(timer),
        (error: unknown) => {
          clearTimeout(timer);
          this.#hookFailed(name, error);
        },
      ),
    );
  }

  #hookFailed(name: GatewayHookName, error: unknown): void {
    try {
      logWarning(this.#logger, 'hook failed', { hook: name, error });
    } catch {
      // A logger that throws must not break the request either.
    }
  }
}

/**
 * The observer of a gateway, or `undefined` when neither hooks nor a tracer are configured: the
 * flag every call site checks, computed once.
 */
export function createObserver(options: ObserverOptions): Observer | undefined {
  return options.hooks || options.tracer ? new Observer(options) : undefined;
}

function idAttributes(
  invocation: Pick<Invocation, 'invocationId' | 'traceId'> | undefined,
  actionId: string,
): Record<string, string> {
  const attributes: Record<string, string> = { 'gateway.action.id': actionId };
  if (invocation) {
    attributes['gateway.invocation.id'] = invocation.invocationId;
    if (invocation.traceId !== undefined) attributes['gateway.trace_id'] = invocation.traceId;
  }
  return attributes;
}

/** A job's invocation ids: its id, and the trace id its payload keeps (all a span needs). */
function invocationOfJob(job: StoredJob): Pick<Invocation, 'invocationId' | 'traceId'> {
  const payload = job.payload as
    | { traceId?: string; invocation?: Pick<Invocation, 'traceId'> }
    | undefined;
  const traceId = payload?.traceId ?? payload?.invocation?.traceId;
  return traceId === undefined
    ? { invocationId: job.invocationId }
    : { invocationId: job.invocationId, traceId };
}
