import type { Action, Invocation } from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import type { CallbackDispatcher } from '../callbacks/callback-dispatcher.ts';
import type { CallbackUrlPolicy } from '../callbacks/callback-url-guard.ts';
import type { InvokeRequest } from '../contract/invoke-request.ts';
import type { Observer } from '../observe/observer.ts';
import type { RecordStore } from '../records/record-store.ts';
import type { InvokesInFlight } from '../runtime/invokes-in-flight.ts';
import type { GatewayLimits, Quotas } from '../runtime/limits.ts';
import type { GatewayLogger } from '../runtime/logger.ts';
import type { JobStore } from '../store/job-store.ts';

/** Decides per request whether an action needs a human's approval; a string is the reason given. */
export type ApprovalPolicy = (request: {
  readonly action: Action;
  readonly input: unknown;
  readonly invocation: Invocation;
  readonly principal: Principal;
}) => boolean | string | Promise<boolean | string>;

/**
 * What a job keeps besides the caller's request (`StoredJob.request`, dropped when the job ends):
 * where to call back, and ids. Opaque to stores.
 */
export interface JobPayload {
  readonly callbacks: InvokeRequest['callbacks'];
  /** The invocation's `traceId`, for spans and hooks after the request is gone. */
  readonly traceId?: string;
  /** Fingerprint of action + input, when the job was created under an idempotency key. */
  readonly fingerprint?: string;
  /** The units of its principal's `heldBytes` quota the job took, given back when it ends. */
  readonly heldUnits?: number;
  /** Jobs stored by earlier versions carry their input and invocation here instead of `request`. */
  readonly invocation?: Invocation;
  readonly input?: Record<string, unknown>;
}

/** Everything the routes share: stores, settings and hooks, resolved once at `createGateway`. */
export interface GatewayRuntime {
  readonly actionsById: ReadonlyMap<string, Action>;
  readonly actionsByName: ReadonlyMap<string, Action>;
  readonly jobs: JobStore;
  readonly records: RecordStore;
  /** `undefined` when callbacks are switched off. */
  readonly callbacks: CallbackDispatcher | undefined;
  readonly callbackUrlPolicy: CallbackUrlPolicy;
  readonly approvalPolicy: ApprovalPolicy | undefined;
  readonly approvalTtlMs: number;
  readonly idempotencyTtlMs: number;
  readonly maxBodyBytes: number;
  readonly limits: GatewayLimits;
  /** Per-principal budgets. */
  readonly quotas: Quotas;
  /** Each principal's invokes being answered now (`quotas.concurrentInvokes`). */
  readonly invokesInFlight: InvokesInFlight;
  /** How long decided and expired approvals stay readable. */
  readonly approvalRetentionMs: number;
  readonly logger: GatewayLogger;
  /** Hooks and tracing; `undefined` when neither is configured (call sites then do nothing). */
  readonly observer: Observer | undefined;
  /** Aborts when the gateway closes: background retries stop. */
  readonly closing: AbortSignal;
  readonly now: () => number;
  /** The configured gateway URL, or the request's base (see `GatewayCall.requestBase`) plus the base path. */
  baseUrl(requestBase: string): string;
  /**
   * Keeps background work (jobs, callbacks, expiry) alive and tracked until it settles; also hands
   * it to the `waitUntil` of the request that started it, if any.
   */
  background(work: Promise<unknown>, waitUntil?: (work: Promise<unknown>) => void): void;
}
