import type { CallbackFailureReason } from '../callbacks/deliver-callback.ts';
import type { ApprovalStatus } from '../contract/approval.ts';
import type { JobStatus } from '../contract/job.ts';

/**
 * The ids every invoke event carries. `traceId` is the invoke's own `traceId`, when it sent one.
 *
 * @example
 * const ids: InvokeIds = { invocationId: 'inv_1', actionId: 'lookup-order', principalId: 'assistant' };
 */
export interface InvokeIds {
  readonly invocationId: string;
  readonly actionId: string;
  readonly principalId: string;
  readonly traceId?: string;
}

/**
 * An authenticated `POST /v1/invoke` whose body is a valid request naming a known action; fired
 * before its input is validated. Every one is followed by exactly one {@link InvokeAnsweredEvent}.
 *
 * @example
 * const onInvokeReceived = (event: InvokeReceivedEvent) => metrics.increment(event.actionId);
 */
export interface InvokeReceivedEvent extends InvokeIds {
  readonly actionName: string;
}

/**
 * The answer to a received invoke, as it leaves: the contract's `status` (`completed`,
 * `accepted`, `approval_required`, `rejected`) or `error` for an error envelope, with the error
 * code, the HTTP status and how long the gateway took.
 *
 * @example
 * const onInvokeAnswered = (event: InvokeAnsweredEvent) =>
 *   histogram.record(event.durationMs, { action: event.actionId, outcome: event.outcome });
 */
export interface InvokeAnsweredEvent extends InvokeIds {
  readonly outcome: 'completed' | 'accepted' | 'approval_required' | 'rejected' | 'error';
  readonly httpStatus: number;
  /** The error's code, for `rejected` and `error`. */
  readonly errorCode?: string;
  /** For `accepted`. */
  readonly jobId?: string;
  /** For `approval_required`. */
  readonly approvalId?: string;
  readonly durationMs: number;
}

/**
 * A job this gateway created, started or finished changed state: `queued` when created, `running`
 * when its action starts, then its terminal status (`completed`, `failed`, `cancelled`).
 *
 * @example
 * const onJobStateChanged = (event: JobStateChangedEvent) =>
 *   event.status === 'failed' && alert(`${event.actionId} failed: ${event.errorCode}`);
 */
export interface JobStateChangedEvent {
  readonly jobId: string;
  readonly invocationId: string;
  readonly actionId: string;
  readonly principalId: string;
  readonly traceId?: string;
  readonly status: JobStatus;
  /** For `failed`. */
  readonly errorCode?: string;
}

/**
 * A new approval was stored (once per approval: an idempotent replay is not a new one). Fired
 * before the `approval_required` answer leaves. The input is not part of the event: call
 * `validatedInput()` when the hook needs it (e.g. to show an operator what to approve).
 *
 * @example
 * const onApprovalRequested = (event: ApprovalRequestedEvent) =>
 *   chat.post(`Approval ${event.approvalId} for ${event.actionName}: ${event.reason}`);
 */
export interface ApprovalRequestedEvent {
  readonly approvalId: string;
  readonly invocationId: string;
  readonly actionId: string;
  readonly actionName: string;
  readonly principalId: string;
  readonly traceId?: string;
  readonly reason: string;
  readonly expiresAt: string;
  /** The validated action input awaiting the decision. */
  validatedInput(): Record<string, unknown>;
}

/**
 * An approval left `pending`: decided (`approved`, with its job, or `denied`) or `expired`.
 *
 * @example
 * const onApprovalDecided = (event: ApprovalDecidedEvent) =>
 *   audit.write({ approval: event.approvalId, status: event.status, by: event.decidedBy });
 */
export interface ApprovalDecidedEvent {
  readonly approvalId: string;
  readonly invocationId: string;
  readonly actionId: string;
  readonly principalId: string;
  readonly traceId?: string;
  readonly status: Exclude<ApprovalStatus, 'pending'>;
  readonly decidedBy?: string;
  /** For `approved`: the job the action runs as. */
  readonly jobId?: string;
}

/**
 * A callback (job result or approval outcome) was delivered, or given up on. `target` is the
 * receiver's origin only; the URL's path and query, the authorization and the body are never
 * part of it.
 *
 * @example
 * const onCallbackFailed = (event: CallbackEvent) =>
 *   console.warn(`callback ${event.webhookId} to ${event.target}: ${event.reason}`);
 */
export interface CallbackEvent {
  readonly kind: 'job_result' | 'approval';
  readonly webhookId: string;
  readonly invocationId: string;
  readonly actionId: string;
  readonly principalId: string;
  readonly jobId?: string;
  readonly approvalId?: string;
  readonly target: string;
  readonly attempts: number;
  /** The last HTTP status received. */
  readonly httpStatus?: number;
  /** Why it was not delivered (failed only). */
  readonly reason?: CallbackFailureReason;
}

/**
 * Lifecycle hooks of a gateway (`createGateway({ hooks })`). Events carry ids, statuses and
 * timings — never tokens, callback credentials or raw request bodies.
 *
 * A hook is called without being awaited: whatever it does, the answer and its latency do not
 * change. A hook that throws or rejects is logged (`warn`, "hook failed"); one whose promise is
 * still pending after `slowHookMs` is logged once (`warn`, "hook slow"). A promise a hook returns
 * is kept alive like a job (`waitUntil`, `gateway.idle()`), so a hook may post to a chat
 * webhook on a serverless platform. Do slow work asynchronously: a hook that blocks the thread
 * blocks every request.
 *
 * @example
 * const hooks: GatewayHooks = {
 *   onInvokeAnswered: (event) => console.info(event.actionId, event.outcome, event.durationMs),
 *   onApprovalRequested: (event) => notifyOperators(event.approvalId, event.reason),
 * };
 */
export interface GatewayHooks {
  readonly onInvokeReceived?: (event: InvokeReceivedEvent) => unknown;
  readonly onInvokeAnswered?: (event: InvokeAnsweredEvent) => unknown;
  readonly onJobStateChanged?: (event: JobStateChangedEvent) => unknown;
  readonly onApprovalRequested?: (event: ApprovalRequestedEvent) => unknown;
  readonly onApprovalDecided?: (event: ApprovalDecidedEvent) => unknown;
  readonly onCallbackDelivered?: (event: CallbackEvent) => unknown;
  readonly onCallbackFailed?: (event: CallbackEvent) => unknown;
  /** After how long a hook's pending promise is logged as slow. Defaults to 5 000 ms. */
  readonly slowHookMs?: number;
}

/**
 * The names of the hooks, i.e. the keys of {@link GatewayHooks} that are functions (as logged in
 * the `hook` field of "hook failed" and "hook slow").
 *
 * @example
 * const name: GatewayHookName = 'onApprovalRequested';
 */
export type GatewayHookName = Exclude<keyof GatewayHooks, 'slowHookMs'>;
