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
});

/** The per-principal budgets: each caller's share of what the gateway keeps for it. */
export interface Quotas {
  /** Queued and running jobs of one principal. Default 100. */
  readonly activeJobs: number;
  /** Pending approvals of one principal. Default 50. */
  readonly pendingApprovals: number;
  /** Live idempotency records (sync invokes with an `idempotencyKey`) of one principal. Default 1 000. */
  readonly idempotencyKeys: number;
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
});

/** The longest delay `setTimeout` keeps (2³¹ − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** How long `auth.verify` may take before the request is answered `503 unavailable`. */
export const VERIFY_TIMEOUT_MS = 10_000;
