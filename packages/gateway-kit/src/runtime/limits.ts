/** Byte budgets of what one request may make the gateway keep (docs/security.md). */
export interface GatewayLimits {
  /** Largest `context` of an invoke, as JSON (UTF-8). Default 64 KiB. */
  readonly maxContextBytes: number;
  /**
   * Largest record kept per job or approval: the action input, the invocation (with its
   * `context`) and the callbacks, as JSON. Default 128 KiB.
   */
  readonly maxStoredBytes: number;
  /**
   * Largest result kept: a job's result (`outputText`, `machineSummary`, `data`…) and a sync answer
   * kept for idempotent replay, as JSON. Default 256 KiB.
   */
  readonly maxResultBytes: number;
  /**
   * Most nodes (objects, arrays and object members) `context` may hold, and, separately,
   * `action.input`: bytes alone do not bound what parsing builds (64 KiB of `{},{},…` is 21 000
   * objects, 20× its size on the heap). A whole body may hold twice this plus 1 024, checked
   * before it is parsed. Default 8 192 (a 64 KiB transcript of 1 600 turns
   * with three fields each is 6 400).
   */
  readonly maxJsonNodes: number;
}

/**
 * The most nodes a whole invoke body may hold under `maxJsonNodes`: room for a full `context` and
 * a full `action.input`, and 1 024 for the rest.
 *
 * @example
 * maxBodyNodes(DEFAULT_LIMITS); // 17_408
 */
export function maxBodyNodes(limits: GatewayLimits): number {
  return 2 * limits.maxJsonNodes + 1_024;
}

/**
 * Defaults of `createGateway({ limits })`.
 *
 * @example
 * createGateway({ ...options, limits: { maxContextBytes: 2 * DEFAULT_LIMITS.maxContextBytes } });
 */
export const DEFAULT_LIMITS: GatewayLimits = Object.freeze({
  maxContextBytes: 64 * 1024,
  maxStoredBytes: 128 * 1024,
  maxResultBytes: 256 * 1024,
  maxJsonNodes: 8_192,
});

/** The per-principal budgets: each caller's share of what the gateway keeps for it. */
export interface Quotas {
  /** Queued and running jobs of one principal. Default 100. */
  readonly activeJobs: number;
  /** Pending approvals of one principal. Default 50. */
  readonly pendingApprovals: number;
  /** Live idempotency records (sync invokes with an `idempotencyKey`) of one principal. Default 1 000. */
  readonly idempotencyKeys: number;
  /**
   * Bytes of caller requests (input and invocation with its `context`, as JSON) that one
   * principal's queued and running jobs hold, counted in 16 KiB units (a job costs at least one).
   * Default 8 MiB: 64 jobs at the 128 KiB `limits.maxStoredBytes`, or the 100 of `activeJobs` at
   * 80 KiB.
   */
  readonly heldBytes: number;
  /**
   * Bytes of sync answers that one principal's idempotency records keep for replay, past the
   * first 16 KiB of each answer (which its `idempotencyKeys` unit pays for), counted in 16 KiB
   * units. An answer that does not fit is given once and not kept: a retry gets `409
   * idempotency_replay_unavailable`, as for an answer over `limits.maxResultBytes`. Default 8 MiB,
   * so one principal's records hold at most about 24 MiB (1 000 keys × 16 KiB + 8 MiB).
   */
  readonly replayBytes: number;
  /**
   * Invokes of one principal being answered at once by one process, from the moment the body is
   * about to be read until the answer (for a sync invoke, until its action settles). Each holds
   * its body and what parsing it built, up to about 1.4 MiB of heap for the densest 256 KiB body
   * the other budgets allow. One more gets `429 quota_exceeded` before its body is read. Default
   * 64.
   */
  readonly concurrentInvokes: number;
}

/** The names of the per-principal budgets. */
export type QuotaName = keyof Quotas;

/**
 * Defaults of `createGateway({ quotas })` (docs/security.md).
 *
 * @example
 * createGateway({ ...options, quotas: { activeJobs: DEFAULT_QUOTAS.activeJobs * 2 } });
 */
export const DEFAULT_QUOTAS: Quotas = Object.freeze({
  activeJobs: 100,
  pendingApprovals: 50,
  idempotencyKeys: 1_000,
  heldBytes: 8 * 1024 * 1024,
  replayBytes: 8 * 1024 * 1024,
  concurrentInvokes: 64,
});

/** The longest delay `setTimeout` keeps (2³¹ − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** How long `auth.verify` may take before the request is answered `503 unavailable`. */
export const VERIFY_TIMEOUT_MS = 10_000;
