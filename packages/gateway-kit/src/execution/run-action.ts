import * as v from 'valibot';
import { type ActionRejection, isActionRejection } from '../actions/action-rejection.ts';
import { ActionResultSchema, parseActionResult } from '../actions/action-result.ts';
import type {
  Action,
  ActionContext,
  ActionResult,
  Invocation,
  JobHandle,
} from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { GatewayError } from '../contract/gateway-error.ts';
import { BudgetRace, isPromiseLike, TIMED_OUT } from '../runtime/time-budget.ts';

/** What one run of an action ended as: the four outcomes every path maps to its answer. */
export type Outcome =
  /** `run` returned an action result (validated). */
  | { readonly kind: 'completed'; readonly result: v.InferOutput<typeof ActionResultSchema> }
  /** `run` refused: `reject(...)` returned or thrown. */
  | { readonly kind: 'rejected'; readonly error: GatewayError }
  /** The time budget ran out first (the action's `signal` was aborted with a `TimeoutError`). */
  | { readonly kind: 'timed_out' }
  /** The run was aborted from outside (cancel, client gone) and gave up. */
  | { readonly kind: 'aborted' }
  /** `run` threw, or returned something that is not an action result; already logged. */
  | { readonly kind: 'crashed'; readonly retryable: boolean };

/** Everything one run needs: the per-invoke scope, instead of a long parameter list. */
export interface RunScope {
  readonly runtime: GatewayRuntime;
  readonly action: Action;
  /** The validated input. */
  readonly input: unknown;
  readonly invocation: Invocation;
  readonly principal: Principal;
  /** The time budget: the smaller of the action's `timeoutMs` and the time to `deadlineAt`. */
  readonly budgetMs: number;
  /**
   * What aborts the run from outside, read only when the action first reads its `signal` (a
   * `GatewayCall`'s disconnect signal is built on first access): a run that never looks at its
   * signal costs no AbortController and no listener.
   */
  readonly abortSource?: { readonly signal: AbortSignal | undefined };
  /** The job handle of a run as a job (progress). */
  readonly job?: JobHandle;
  /** Ids for the crash log line (the invocation's, and the job's when there is one). */
  readonly logIds?: Readonly<Record<string, string>>;
}

/**
 * Runs an action once: builds its context, calls `run`, races a pending result against the time
 * budget (aborting the action's signal when it runs out), and classifies what came back. A
 * synchronous `run` is answered synchronously: no promise, no timer.
 *
 * @example
 * const outcome = await runAction({ runtime, action, input, invocation, principal, budgetMs });
 * if (outcome.kind === 'completed') console.log(outcome.result.outputText);
 */
export function runAction(scope: RunScope): Outcome | Promise<Outcome> {
  const context = new RunContext(scope);
  let returned: ReturnType<Action['run']>;
  try {
    returned = scope.action.run(scope.input, context);
  } catch (error) {
    return failedRun(scope, context, error);
  }
  if (!isPromiseLike(returned)) return classify(scope, returned);
  // The outcome is classified as the race settles: one promise per run, no mapping step after it.
  const pending = returned;
  return new Promise((resolve, reject) => {
    new RunRace(scope, context, resolve, reject).start(pending, scope.budgetMs);
  });
}

/** A pending run against its time budget: settles the run's promise with its {@link Outcome}. */
class RunRace extends BudgetRace<ActionResult | ActionRejection | undefined> {
  readonly #scope: RunScope;
  readonly #context: RunContext;
  readonly #resolve: (outcome: Outcome) => void;
  readonly #reject: (error: unknown) => void;

  constructor(
    scope: RunScope,
    context: RunContext,
    resolve: (outcome: Outcome) => void,
    reject: (error: unknown) => void,
  ) {
    super();
    this.#scope = scope;
    this.#context = context;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  protected won(produced: ActionResult | ActionRejection | undefined): void {
    try {
      this.#resolve(classify(this.#scope, produced));
    } catch (error) {
      this.#reject(error);
    }
  }

  protected failed(error: unknown): void {
    this.#resolve(failedRun(this.#scope, this.#context, error));
  }

  protected timedOut(): void {
    RunContext.timeOut(this.#context);
    this.#resolve({ kind: 'timed_out' });
  }
}

/** What a throw (or a rejection) of `run` ended as. */
function failedRun(scope: RunScope, context: RunContext, error: unknown): Outcome {
  if (isActionRejection(error)) return { kind: 'rejected', error: error.error };
  // The action gave up because it was asked to: a time-out or an abort from outside, not a
  // crash to log.
  const signal = RunContext.signalOf(context);
  if (signal?.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    return reason?.name === 'TimeoutError' ? { kind: 'timed_out' } : { kind: 'aborted' };
  }
  return crashed(scope, error);
}

/**
 * A run's context for another step of the same invoke (the action's `precheck`): the same
 * lazily-made `signal`, aborted by the scope's `abortSource` or by {@link timeOutRunContext}.
 */
export function createRunContext(scope: RunScope): ActionContext {
  return new RunContext(scope);
}

/** Aborts a context's signal with a `TimeoutError`, if the step asked for its signal. */
export function timeOutRunContext(context: ActionContext): void {
  if (context instanceof RunContext) RunContext.timeOut(context);
}

/**
 * The `context` a run receives. A class, so that `signal` is one getter on the prototype: an
 * object literal with a getter gets a new closure, and so a new hidden class, per run, which
 * keeps the run's objects alive until the next full GC. The AbortController and its listener are
 * made only when the action first reads `signal`.
 */
class RunContext implements ActionContext {
  readonly invocation: Invocation;
  readonly principal: Principal;
  declare readonly job?: JobHandle;
  readonly #abortSource: RunScope['abortSource'];
  #controller: AbortController | undefined;

  constructor(scope: RunScope) {
    this.invocation = scope.invocation;
    this.principal = scope.principal;
    // Only a job's run has `job`, as before: absent, not `undefined`, for a sync run.
    if (scope.job) (this as { job?: JobHandle }).job = scope.job;
    this.#abortSource = scope.abortSource;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const created = new AbortController();
      this.#controller = created;
      const outside = this.#abortSource?.signal;
      if (outside?.aborted) created.abort(outside.reason);
      else outside?.addEventListener('abort', () => created.abort(outside.reason), { once: true });
    }
    return this.#controller.signal;
  }

  // Static, so that the action sees nothing but the context's own fields.
  /** The signal, if the action asked for it (nothing to abort otherwise). */
  static signalOf(context: RunContext): AbortSignal | undefined {
    return context.#controller?.signal;
  }

  /** Aborts the signal, if the action holds it, with a `TimeoutError`. */
  static timeOut(context: RunContext): void {
    context.#controller?.abort(new DOMException('The work ran out of time.', 'TimeoutError'));
  }
}

/** Turns what `run` produced (or the time-out) into an {@link Outcome}. */
function classify(
  scope: RunScope,
  produced: ActionResult | ActionRejection | undefined | typeof TIMED_OUT,
): Outcome {
  if (produced === TIMED_OUT) return { kind: 'timed_out' };
  if (isActionRejection(produced)) return { kind: 'rejected', error: produced.error };
  // The specialised check answers the common result; the schema judges the rest.
  const value = produced ?? {};
  const fast = parseActionResult(value);
  if (fast) return { kind: 'completed', result: fast };
  const result = v.safeParse(ActionResultSchema, value);
  if (!result.success)
    return crashed(scope, new TypeError('run() returned a value that is not an action result'));
  return { kind: 'completed', result: result.output };
}

/** Logs a crash (with ids, never the input) and reports it retryable when the action is idempotent. */
export function crashed(scope: RunScope, error: unknown): Extract<Outcome, { kind: 'crashed' }> {
  scope.runtime.logger.error('action failed', {
    actionId: scope.action.id,
    invocationId: scope.invocation.invocationId,
    ...scope.logIds,
    error,
  });
  return { kind: 'crashed', retryable: scope.action.idempotent };
}
