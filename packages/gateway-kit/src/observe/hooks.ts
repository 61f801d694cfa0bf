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
  /** The request's `invocationId`. */
  readonly invocationId: string;
  /** Id of the action invoked. */
  readonly actionId: string;
  /** `id` of the caller's principal. */
  readonly principalId: string;
  /** The request's `traceId`; absent when it sent none. */
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
  /** Name of the action invoked. */
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
  /** The answer's `status`, or `error` for an error envelope. */
  readonly outcome: 'completed' | 'accepted' | 'approval_required' | 'rejected' | 'error';
  /** HTTP status of the answer. */
  readonly httpStatus: number;
  /** The error's code, for `rejected` and `error`. */
  readonly errorCode?: string;
  /** For `accepted`. */
  readonly jobId?: string;
  /** For `approval_required`. */
  readonly approvalId?: string;
  /** Milliseconds from the request reaching the gateway to the answer being ready. */
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
  /** The job's id. */
  readonly jobId: string;
  /** `invocationId` of the request that created the job. */
  readonly invocationId: string;
  /** Id of the action the job runs. */
  readonly actionId: string;
  /** `id` of the principal that owns the job. */
  readonly principalId: string;
  /** `traceId` of the request that created the job; absent when it sent none. */
  readonly traceId?: string;
  /** The job's new status. */
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
  /** The new approval's id. */
  readonly approvalId: string;
  /** `invocationId` of the request that asked for approval. */
  readonly invocationId: string;
  /** Id of the action awaiting approval. */
  readonly actionId: string;
  /** Name of the action awaiting approval. */
  readonly actionName: string;
  /** `id` of the principal that made the request. */
  readonly principalId: string;
  /** The request's `traceId`; absent when it sent none. */
  readonly traceId?: string;
  /** Why approval is needed, as in the `approval_required` answer. */
  readonly reason: string;
  /** When the approval expires if nobody decides (ISO 8601). */
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
  /** The approval's id. */
  readonly approvalId: string;
  /** `invocationId` of the request that asked for approval. */
  readonly invocationId: string;
  /** Id of the action that awaited approval. */
  readonly actionId: string;
  /** `id` of the principal that made the request. */
  readonly principalId: string;
  /** The request's `traceId`; absent when it sent none. */
  readonly traceId?: string;
  /** The approval's final status. */
  readonly status: Exclude<ApprovalStatus, 'pending'>;
  /** Who decided; absent for `expired`. */
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
  /** `job_result` (sent to `jobResultUrl`) or `approval` (sent to `approvalUrl`). */
  readonly kind: 'job_result' | 'approval';
  /** The callback's `webhook-id`, the same on every attempt. */
  readonly webhookId: string;
  /** `invocationId` of the request the callback follows. */
  readonly invocationId: string;
  /** Id of the action the callback is about. */
  readonly actionId: string;
  /** `id` of the principal that made the request. */
  readonly principalId: string;
  /** The job the callback reports on, when there is one. */
  readonly jobId?: string;
  /** The approval the callback reports on, for `approval`. */
  readonly approvalId?: string;
  /** The callback URL's origin (scheme, host and port). */
  readonly target: string;
  /** How many attempts were made. */
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
  /** An invoke naming a known action was received (before its input is validated). */
  readonly onInvokeReceived?: (event: InvokeReceivedEvent) => unknown;
  /** A received invoke was answered. */
  readonly onInvokeAnswered?: (event: InvokeAnsweredEvent) => unknown;
  /** A job was queued, started, or finished. */
  readonly onJobStateChanged?: (event: JobStateChangedEvent) => unknown;
  /** A new approval was stored. */
  readonly onApprovalRequested?: (event: ApprovalRequestedEvent) => unknown;
  /** An approval was approved, denied or expired. */
  readonly onApprovalDecided?: (event: ApprovalDecidedEvent) => unknown;
  /** A callback was delivered (a 2xx answer). */
  readonly onCallbackDelivered?: (event: CallbackEvent) => unknown;
  /** A callback was given up on; `reason` says why. */
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
