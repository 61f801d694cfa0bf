import * as v from 'valibot';
import { isActionRejection } from '../actions/action-rejection.ts';
import type { Action, Invocation } from '../actions/define-action.ts';
import {
  describeIssues,
  parseActionInput,
  SAFE_PARSE_CONFIG,
} from '../actions/validation-issues.ts';
import type { ApprovalService } from '../approvals/approval-service.ts';
import type { Principal } from '../auth/principal.ts';
import { callbackUrlRefusalMessage, checkCallbackUrl } from '../callbacks/callback-url-guard.ts';
import type { GatewayRuntime, JobPayload } from '../context/gateway-runtime.ts';
import { gatewayError } from '../contract/error-catalogue.ts';
import { type InvokeRequest, InvokeRequestSchema } from '../contract/invoke-request.ts';
import type {
  AcceptedResponse,
  CompletedResponse,
  RejectedResponse,
} from '../contract/invoke-response.ts';
import { parseInvokeRequest } from '../contract/parse-invoke-request.ts';
import {
  crashed,
  createRunContext,
  type Outcome,
  type RunScope,
  runAction,
  timeOutRunContext,
} from '../execution/run-action.ts';
import type { BodyReadResult, GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { jsonValueNodes } from '../http/json-shape.ts';
import { jsonByteLength, utf8Length } from '../http/json-size.ts';
import { judgeJsonBody, refuseJsonHeaders, tooManyNodes } from '../http/read-json-body.ts';
import { errorReply, jsonReply } from '../http/replies.ts';
import { jobUrls } from '../http/routes.ts';
import {
  type IdempotencyScope,
  idempotencyMismatch,
  idempotencyScope,
  runIdempotentSync,
  type SyncOutcome,
  storedSyncAnswer,
} from '../idempotency/idempotency.ts';
import { encodeJobRequest } from '../jobs/job-request.ts';
import { JOB_QUOTA_MARGIN_MS, startJob } from '../jobs/job-runner.ts';
import { createJob } from '../jobs/new-job.ts';
import {
  claimJobQuotas,
  heldUnits,
  jobQuotaClaim,
  quotaExceeded,
  releaseJobQuotas,
} from '../quotas/quotas.ts';
import { deadlineOf } from '../runtime/deadline.ts';
import { randomId } from '../runtime/fingerprint.ts';
import { maxBodyNodes } from '../runtime/limits.ts';
import { isPromiseLike, TIMED_OUT, withinBudget } from '../runtime/time-budget.ts';
import { isJobQuotaError } from '../store/job-quota-error.ts';
import { isTerminal, type StoredJob } from '../store/job-store.ts';

/**
 * The shape budget of `context` and `action.input` (`limits.maxJsonNodes`), each on its own. Free
 * when the whole body holds no more nodes than one part may (the common case).
 */
function overShape(
  runtime: GatewayRuntime,
  request: InvokeRequest,
  bodyNodes: number | undefined,
): GatewayReply | undefined {
  const { maxJsonNodes } = runtime.limits;
  if (bodyNodes !== undefined && bodyNodes <= maxJsonNodes) return undefined;
  if (jsonValueNodes(request.context, maxJsonNodes) > maxJsonNodes)
    return tooManyNodes('context', maxJsonNodes);
  if (jsonValueNodes(request.action.input, maxJsonNodes) > maxJsonNodes)
    return tooManyNodes('action.input', maxJsonNodes);
  return undefined;
}

/**
 * The 413 for a part of the request over its budget: names the field and the limit, never the
 * value.
 */
function fieldTooLarge(field: string, maxBytes: number): GatewayReply {
  return errorReply('payload_too_large', {
    message: `${field} is larger than ${maxBytes} bytes as JSON.`,
    details: { field, maxBytes },
  });
}

/**
 * Checks the byte budgets of what this request makes the gateway keep: `context` always (the
 * action sees it), and the whole stored record when the request becomes a job or an approval.
 * Free for bodies smaller than the budgets: a part is never larger than the body it came in.
 */
function overBudget(
  { runtime, request }: InvokeScope,
  bodyBytes: number | undefined,
  stored: boolean,
): GatewayReply | undefined {
  const { maxContextBytes, maxStoredBytes } = runtime.limits;
  if (bodyBytes === undefined || bodyBytes > maxContextBytes) {
    if (jsonByteLength(request.context) > maxContextBytes)
      return fieldTooLarge('context', maxContextBytes);
  }
  if (stored && (bodyBytes === undefined || bodyBytes > maxStoredBytes)) {
    const size = jsonByteLength({
      input: request.action.input,
      context: request.context,
      meeting: request.meeting,
      session: request.session,
      callbacks: request.callbacks,
    });
    if (size > maxStoredBytes) return fieldTooLarge('action.input', maxStoredBytes);
  }
  return undefined;
}

/** Finds the one action a request names, by `action.id`, `action.name`, or both (which must agree). */
function resolveAction(
  request: InvokeRequest,
  runtime: GatewayRuntime,
): { ok: true; action: Action } | { ok: false; reply: GatewayReply } {
  const { id, name } = request.action;
  if (id === undefined && name === undefined) {
    return {
      ok: false,
      reply: errorReply('invalid_request', {
        message: 'The request must name one action by action.id or action.name.',
        details: { issues: [{ path: 'action', message: 'Expected action.id or action.name' }] },
      }),
    };
  }
  const byId = id === undefined ? undefined : runtime.actionsById.get(id);
  const byName = name === undefined ? undefined : runtime.actionsByName.get(name);
  const action = byId ?? byName;
  if (!action || (id !== undefined && !byId) || (name !== undefined && !byName)) {
    return { ok: false, reply: errorReply('unknown_action') };
  }
  if (byId && byName && byId !== byName) {
    return {
      ok: false,
      reply: errorReply('invalid_request', {
        message: 'action.id and action.name name different actions.',
        details: { issues: [{ path: 'action.name', message: 'Does not match action.id' }] },
      }),
    };
  }
  return { ok: true, action };
}

/** What the action (and the observer) learn of the invocation: built once per invoke. */
function invocationOf(request: InvokeRequest): Invocation {
  const invocation: {
    -readonly [K in keyof Invocation]: Invocation[K];
  } = {
    invocationId: request.invocationId,
    meeting: request.meeting,
    session: request.session,
    context: request.context,
  };
  if (request.traceId !== undefined) invocation.traceId = request.traceId;
  if (request.idempotencyKey !== undefined) invocation.idempotencyKey = request.idempotencyKey;
  if (request.deadlineAt !== undefined) invocation.deadlineAt = request.deadlineAt;
  return invocation;
}

function rejected(error: RejectedResponse['error']): GatewayReply {
  return jsonReply(200, { status: 'rejected', error } satisfies RejectedResponse);
}

/**
 * One invoke, once its action and input are known: what every step after validation reads, handed
 * through them as one object. It is the action's {@link RunScope} too (the call is what aborts the
 * run when the client goes away), so a sync run needs no scope of its own.
 */
interface InvokeScope extends RunScope {
  readonly call: GatewayCall;
  readonly request: InvokeRequest;
  readonly abortSource: GatewayCall;
  /** Where the request's idempotency key leads; `undefined` without a key. */
  readonly idempotent: IdempotencyScope | undefined;
}

/**
 * `POST /v1/invoke` after authentication: read and validate the body, resolve the one action,
 * validate its input, then dispatch — approval, async job or sync run — and answer with one of the
 * contract's four invoke responses.
 *
 * Not `async`, and split at its waits (the body, an async input schema, a precheck or approval
 * policy, the run): each step continues in a plain function, so a sync invoke holds no suspended
 * `async` frame of its own and takes one promise reaction per wait. May throw; the router answers
 * a throw (or a rejection) as any other failure.
 */
export function handleInvoke(
  call: GatewayCall,
  principal: Principal,
  runtime: GatewayRuntime,
  approvals: ApprovalService,
): GatewayReply | Promise<GatewayReply> {
  const refusedBody = refuseJsonHeaders(call, runtime.maxBodyBytes);
  if (refusedBody) return refusedBody;
  // Before the body is read: what an invoke holds until it is answered is counted per principal.
  const slots = runtime.invokesInFlight.enter(principal.id);
  if (slots === undefined) return quotaExceeded(runtime, 'concurrentInvokes');
  let answer: Promise<GatewayReply>;
  try {
    answer = call
      .readBody(runtime.maxBodyBytes)
      .then((read) => invokeWithBody(call, principal, runtime, approvals, read));
  } catch (error) {
    slots.release();
    throw error;
  }
  answer.then(slots.release, slots.release);
  return answer;
}

/** {@link handleInvoke} once the body is read: the request and the action, then its input. */
function invokeWithBody(
  call: GatewayCall,
  principal: Principal,
  runtime: GatewayRuntime,
  approvals: ApprovalService,
  read: BodyReadResult,
): GatewayReply | Promise<GatewayReply> {
  const body = judgeJsonBody(read, runtime.maxBodyBytes, maxBodyNodes(runtime.limits));
  if (!body.ok) return body.reply;

  // The specialised check answers the common body; the schema judges (and names) the rest.
  // (Only for a body parsed here: one a framework parsed is shared with its other handlers.)
  let request = body.bytes === undefined ? undefined : parseInvokeRequest(body.value);
  if (request === undefined) {
    const parsed = v.safeParse(InvokeRequestSchema, body.value, SAFE_PARSE_CONFIG);
    if (!parsed.success) {
      return errorReply('invalid_request', { details: describeIssues(parsed.issues) });
    }
    request = parsed.output;
  }
  // Before the action's schema copies the input: an over-shaped part goes no further.
  const overShaped = overShape(runtime, request, body.nodes);
  if (overShaped) return overShaped;

  const resolved = resolveAction(request, runtime);
  if (!resolved.ok) return resolved.reply;
  const action = resolved.action;
  const invocation = invocationOf(request);
  runtime.observer?.invokeReceived(call, invocation, action, principal.id);

  const parsedInput = parseActionInput(action.input, request.action.input);
  // Sync schemas (the common case) answer at once: no extra promise, no extra microtask.
  if (parsedInput instanceof Promise) {
    const known: KnownInvoke = { runtime, action, invocation, principal, call, request };
    return parsedInput.then((input) => invokeWithInput(known, input, approvals, body.bytes));
  }
  return invokeWithInput(
    { runtime, action, invocation, principal, call, request },
    parsedInput,
    approvals,
    body.bytes,
  );
}

/** What {@link invokeWithBody} knows before the action's input is validated. */
type KnownInvoke = Pick<
  InvokeScope,
  'runtime' | 'action' | 'invocation' | 'principal' | 'call' | 'request'
>;

/** {@link handleInvoke} once the input is validated: the deadline, then the checks and the run. */
function invokeWithInput(
  { runtime, action, invocation, principal, call, request }: KnownInvoke,
  input: Awaited<ReturnType<typeof parseActionInput>>,
  approvals: ApprovalService,
  bodyBytes: number | undefined,
): GatewayReply | Promise<GatewayReply> {
  if (!input.success) {
    return errorReply('invalid_input', { details: describeIssues(input.issues, 'action.input') });
  }

  const now = runtime.now();
  const deadline = deadlineOf(request.deadlineAt);
  if (deadline <= now) {
    return rejected(
      gatewayError('deadline_exceeded', { message: 'The deadline had already passed.' }),
    );
  }
  const scope: InvokeScope = {
    runtime,
    action,
    input: input.output,
    invocation,
    principal,
    budgetMs: Math.min(action.timeoutMs, deadline - now),
    abortSource: call,
    call,
    request,
    idempotent:
      request.idempotencyKey === undefined
        ? undefined
        : idempotencyScope(principal, action, request.idempotencyKey, request.action.input),
  };
  // Most actions have no precheck, need no approval and no policy is set: nothing to wait for.
  if (action.precheck || action.requiresApproval || runtime.approvalPolicy)
    return checkThenDispatch(scope, approvals, bodyBytes);
  return dispatchInvoke(scope, approvals, undefined, bodyBytes);
}

/**
 * The action's precheck, then whether it needs an operator's approval; then the dispatch. A retry
 * under an idempotency key that already has an answer gets it first, without either running.
 */
async function checkThenDispatch(
  scope: InvokeScope,
  approvals: ApprovalService,
  bodyBytes: number | undefined,
): Promise<GatewayReply> {
  const earlier = await earlierAnswer(scope, approvals);
  if (earlier) return earlier;
  if (scope.action.precheck) {
    const refusal = await runPrecheck(scope);
    if (refusal) return refusal;
  }
  const approvalReason =
    scope.action.requiresApproval || scope.runtime.approvalPolicy
      ? await approvalReasonFor(scope)
      : undefined;
  return dispatchInvoke(scope, approvals, approvalReason, bodyBytes);
}

/** The job id an idempotency key gives an async action's job: a retry finds the same job. */
function idempotentJobId(idempotent: IdempotencyScope): string {
  return `job_${idempotent.scopeId.slice(0, 32)}`;
}

/** The approval id and fingerprint an idempotency key gives a request for approval. */
function idempotentApproval(idempotent: IdempotencyScope): {
  readonly approvalId: string;
  readonly fingerprint: string;
} {
  return {
    approvalId: `apr_${idempotent.scopeId.slice(0, 32)}`,
    fingerprint: idempotent.fingerprint,
  };
}

/**
 * Under an idempotency key, the answer an earlier request with the key already has, read before
 * the precheck and the approval policy run: they are user code, and what the first request did
 * (an order refunded) may make them decide otherwise for its retry, which must get the first
 * answer. Only reads; the claim stays with the dispatch, which answers a retry that comes while
 * this one goes on. `undefined` without a key, without user code ahead of the claim, or without
 * an earlier answer.
 */
async function earlierAnswer(
  scope: InvokeScope,
  approvals: ApprovalService,
): Promise<GatewayReply | undefined> {
  const { runtime, action, call, idempotent } = scope;
  if (idempotent === undefined || (!action.precheck && !runtime.approvalPolicy)) return undefined;
  if (action.requiresApproval || runtime.approvalPolicy) {
    const replayed = await approvals.replay(
      idempotentApproval(idempotent),
      runtime.baseUrl(call.requestBase),
    );
    if (replayed) return replayed.ok ? jsonReply(200, replayed.response) : idempotencyMismatch();
    if (action.requiresApproval) return undefined;
  }
  if (action.executionMode === 'async') {
    const job = await runtime.jobs.get(idempotentJobId(idempotent));
    return job && acceptedReply(scope, job);
  }
  return storedSyncAnswer(runtime, idempotent);
}

/** Approval, async job or sync run, once every check passed. */
function dispatchInvoke(
  scope: InvokeScope,
  approvals: ApprovalService,
  approvalReason: string | undefined,
  bodyBytes: number | undefined,
): GatewayReply | Promise<GatewayReply> {
  const { runtime, action, request, invocation, call } = scope;
  const runsAsJob = approvalReason !== undefined || action.executionMode === 'async';
  runtime.logger.debug?.('invoke dispatched', {
    invocationId: request.invocationId,
    actionId: action.id,
    as: approvalReason !== undefined ? 'approval' : runsAsJob ? 'job' : 'sync',
  });

  const refused = refusedCallbackUrl(scope, runsAsJob, approvalReason !== undefined);
  if (refused) return refused;
  const oversized = overBudget(scope, bodyBytes, runsAsJob);
  if (oversized) return oversized;

  const { idempotent } = scope;
  if (approvalReason !== undefined) return requestApproval(scope, approvals, approvalReason);
  if (action.executionMode === 'async') return acceptJob(scope);
  const traced = runtime.observer?.actionRun(call, action, invocation, () => runSync(scope));
  if (idempotent)
    return runIdempotentSync(runtime, idempotent, action, traced ?? (() => runSync(scope)));
  if (traced) {
    const outcome = traced();
    return outcome instanceof Promise ? outcome.then(replyOf) : outcome.reply;
  }
  // The common case, without the mapping promise of runSync.
  const ran = runAction(scope);
  return isPromiseLike(ran)
    ? ran.then((outcome) => answerOf(scope, outcome).reply)
    : answerOf(scope, ran).reply;
}

function replyOf(outcome: SyncOutcome): GatewayReply {
  return outcome.reply;
}

/** Asks for an operator's approval: the `approval_required` answer, or a quota/idempotency refusal. */
async function requestApproval(
  { runtime, action, request, invocation, principal, call, idempotent }: InvokeScope,
  approvals: ApprovalService,
  reason: string,
): Promise<GatewayReply> {
  const requested = await approvals.request({
    action,
    input: request.action.input,
    invocation,
    principal,
    callbacks: request.callbacks,
    reason,
    baseUrl: runtime.baseUrl(call.requestBase),
    ...(idempotent ? { idempotent: idempotentApproval(idempotent) } : {}),
  });
  if (requested.ok) return jsonReply(200, requested.response);
  return requested.refused === 'quota'
    ? quotaExceeded(runtime, 'pendingApprovals')
    : idempotencyMismatch();
}

/**
 * Runs an action's `precheck` with the context a run gets (its `signal` aborts when the client
 * goes away or the budget runs out): a refusal answers `rejected` now; a crash is an internal
 * error.
 */
async function runPrecheck(scope: InvokeScope): Promise<GatewayReply | undefined> {
  const context = createRunContext(scope);
  try {
    const pending = scope.action.precheck?.(scope.input, context);
    // Bounded like the action itself: a precheck that never settles must not hang the invoke.
    const refusal = isPromiseLike(pending)
      ? await withinBudget(pending, {
          budgetMs: scope.budgetMs,
          onTimeout: () => timeOutRunContext(context),
        })
      : pending;
    if (refusal === TIMED_OUT) {
      return rejected(
        gatewayError('deadline_exceeded', { message: 'The precheck did not finish in time.' }),
      );
    }
    return isActionRejection(refusal) ? rejected(refusal.error) : undefined;
  } catch (error) {
    if (isActionRejection(error)) return rejected(error.error);
    return crashReply(crashed(scope, error)).reply;
  }
}

/** The approval reason when this request needs one: the action's flag, or the gateway's policy. */
async function approvalReasonFor({
  runtime,
  action,
  input,
  invocation,
  principal,
  budgetMs,
}: InvokeScope): Promise<string | undefined> {
  const fallback = `"${action.title}" needs an operator's approval.`;
  if (action.requiresApproval) return fallback;
  if (!runtime.approvalPolicy) return undefined;
  const verdict = await withinBudget(
    Promise.resolve(runtime.approvalPolicy({ action, input, invocation, principal })),
    { budgetMs },
  );
  // A policy that cannot decide in time asks for approval: the safe side of a side effect.
  if (verdict === TIMED_OUT) return fallback;
  if (verdict === false) return undefined;
  return typeof verdict === 'string' && verdict.length > 0 ? verdict : fallback;
}

/**
 * Judges the callback URLs this request will actually use (SSRF guard) so a refused URL is a 422
 * now rather than a silently undelivered callback later.
 */
function refusedCallbackUrl(
  { runtime, request }: InvokeScope,
  runsAsJob: boolean,
  needsApproval: boolean,
): GatewayReply | undefined {
  // A sync invoke uses no callback URL: nothing to judge (and nothing to allocate).
  if (!runtime.callbacks || !runsAsJob) return undefined;
  const used: Array<['jobResultUrl' | 'approvalUrl', string | undefined]> = [
    ['jobResultUrl', runsAsJob ? request.callbacks.jobResultUrl : undefined],
    ['approvalUrl', needsApproval ? request.callbacks.approvalUrl : undefined],
  ];
  const issues = [];
  for (const [field, url] of used) {
    if (url === undefined) continue;
    const checked = checkCallbackUrl(url, runtime.callbackUrlPolicy);
    if (!checked.ok)
      issues.push({
        path: `callbacks.${field}`,
        message: callbackUrlRefusalMessage(checked.reason),
      });
  }
  return issues.length > 0
    ? errorReply('invalid_request', {
        message: 'A callback URL is not allowed.',
        details: { issues },
      })
    : undefined;
}

/**
 * Creates the job (answering only once it is readable from the store) and starts it in the
 * background. Under an idempotency key the job id is derived from the key, so a retry finds the
 * same job and gets the same `accepted` answer. A new job counts against its principal's
 * `activeJobs` budget until it finishes.
 */
async function acceptJob(scope: InvokeScope): Promise<GatewayReply> {
  const { runtime, action, request, input, invocation, principal, call, idempotent } = scope;
  const jobId = idempotent ? idempotentJobId(idempotent) : randomId('job');
  // A retry of a job that exists is a replay: it costs no budget, even a spent one.
  const existing = idempotent ? await runtime.jobs.get(jobId) : undefined;
  if (existing) return acceptedReply(scope, existing);

  const quotaTtlMs = action.timeoutMs + JOB_QUOTA_MARGIN_MS;
  // The job counts against its principal's activeJobs, and what it holds of the request against
  // heldBytes: both claimed at once, all or none.
  const requestText = encodeJobRequest({ input: request.action.input, invocation });
  const units = heldUnits(utf8Length(requestText));
  // A job store that keeps the budgets itself takes them in the create (one round trip, not two);
  // otherwise they are claimed in the record store first.
  const inStore = runtime.jobs.claimsJobQuotas === true;
  if (!inStore) {
    const spent = await claimJobQuotas(runtime, principal.id, jobId, units, quotaTtlMs);
    if (spent) return quotaExceeded(runtime, spent);
  }
  const release = async (): Promise<void> => {
    if (!inStore) await releaseJobQuotas(runtime, principal.id, jobId, units);
  };
  let created: { readonly created: boolean; readonly job: StoredJob };
  try {
    created = await runtime.jobs.create(
      createJob({
        jobId,
        ownerId: principal.id,
        action,
        invocation,
        callbacks: request.callbacks,
        input: request.action.input,
        fingerprint: idempotent?.fingerprint,
        heldUnits: units,
        request: requestText,
        now: runtime.now(),
        // This instance runs the job at once: created running, it saves the store a write. A store
        // that restarts orphaned jobs in place (onOrphaned) must still tell a job that never ran
        // (queued: started again) from one that may have (running: failed unless idempotent).
        status: runtime.jobs.onOrphaned ? 'queued' : 'running',
      }),
      inStore ? jobQuotaClaim(runtime, units, quotaTtlMs) : undefined,
    );
  } catch (error) {
    if (isJobQuotaError(error)) return quotaExceeded(runtime, error.quota);
    await release();
    throw error;
  }
  if (created.created)
    startJob(runtime, created.job, action, principal, call.waitUntil, { input, invocation });
  else if (isTerminal(created.job.status)) await release();
  return acceptedReply(scope, created.job);
}

/**
 * The `accepted` answer for a job: the first answer and a retry's alike (a retry repeats the
 * original answer; the job's current state is at its statusUrl), or `422 idempotency_mismatch`
 * when the job was made for a different request under the same key.
 */
function acceptedReply({ runtime, call, idempotent }: InvokeScope, job: StoredJob): GatewayReply {
  if ((job.payload as unknown as JobPayload | undefined)?.fingerprint !== idempotent?.fingerprint)
    return idempotencyMismatch();
  const accepted: AcceptedResponse = {
    status: 'accepted',
    job: {
      jobId: job.jobId,
      status: 'queued',
      ...jobUrls(runtime.baseUrl(call.requestBase), job.jobId),
    },
  };
  return jsonReply(200, accepted);
}

/**
 * A sync invoke's answer from the one action runner: `completed` or `rejected` (a refusal, or
 * `deadline_exceeded`), or the 500 of a crash.
 */
function runSync(scope: RunScope): SyncOutcome | Promise<SyncOutcome> {
  const outcome = runAction(scope);
  return isPromiseLike(outcome)
    ? outcome.then((settled) => answerOf(scope, settled))
    : answerOf(scope, outcome);
}

function answerOf(scope: RunScope, outcome: Outcome): SyncOutcome {
  switch (outcome.kind) {
    case 'completed': {
      const completed: CompletedResponse = { status: 'completed', ...outcome.result };
      try {
        return { reply: jsonReply(200, completed), retryable: false };
      } catch (error) {
        // e.g. a BigInt or a cycle in `data`.
        return crashReply(crashed(scope, error));
      }
    }
    case 'rejected':
      return rejectedOutcome(outcome.error);
    case 'timed_out':
      return rejectedOutcome(gatewayError('deadline_exceeded'));
    case 'aborted':
      // The client went away and the action stopped: nobody reads this answer.
      return crashReply({ kind: 'crashed', retryable: scope.action.idempotent });
    case 'crashed':
      return crashReply(outcome);
  }
}

function crashReply(outcome: Extract<Outcome, { kind: 'crashed' }>): SyncOutcome {
  return {
    reply: errorReply('internal_error', { retryable: outcome.retryable }),
    retryable: outcome.retryable,
  };
}

function rejectedOutcome(error: RejectedResponse['error']): SyncOutcome {
  return { reply: rejected(error), retryable: error.retryable };
}
