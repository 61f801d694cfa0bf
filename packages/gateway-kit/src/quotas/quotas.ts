import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { GatewayReply } from '../http/gateway-call.ts';
import { errorReply } from '../http/replies.ts';
import type { QuotaName } from '../runtime/limits.ts';

// What `Retry-After` says when a budget is spent: about how soon one entry frees up.
const RETRY_AFTER_SECONDS: Readonly<Record<QuotaName, number>> = {
  activeJobs: 5,
  pendingApprovals: 60,
  idempotencyKeys: 60,
};

const setOf = (name: QuotaName, principalId: string): string => `quota:${name}:${principalId}`;

/**
 * Takes one unit of `principalId`'s budget `name` for `member` (a job, approval or idempotency
 * scope id) for at most `ttlMs`; `false` when the budget is spent. Taking it again for the same
 * member costs nothing.
 */
export function claimQuota(
  runtime: GatewayRuntime,
  name: QuotaName,
  principalId: string,
  member: string,
  ttlMs: number,
): Promise<boolean> {
  return runtime.records.addToSet(setOf(name, principalId), member, ttlMs, runtime.quotas[name]);
}

/** Keeps `member` counted until `ttlMs` from now (never shortens it). */
export async function extendQuota(
  runtime: GatewayRuntime,
  name: QuotaName,
  principalId: string,
  member: string,
  ttlMs: number,
): Promise<void> {
  await runtime.records.addToSet(setOf(name, principalId), member, ttlMs);
}

/**
 * Gives `member`'s unit back. Never rejects: a release that fails is logged, and the unit frees
 * itself when its time to live runs out.
 */
export async function releaseQuota(
  runtime: GatewayRuntime,
  name: QuotaName,
  principalId: string,
  member: string,
): Promise<void> {
  try {
    await runtime.records.removeFromSet(setOf(name, principalId), member);
  } catch (error) {
    runtime.logger.warn?.('quota release failed; it frees itself when it expires', {
      quota: name,
      error,
    });
  }
}

/** The `429 quota_exceeded` answer for a spent budget, with `Retry-After`. */
export function quotaExceeded(runtime: GatewayRuntime, name: QuotaName): GatewayReply {
  return errorReply(
    'quota_exceeded',
    {
      message: `Too many ${QUOTA_NOUNS[name]} for this caller; retry later.`,
      details: { quota: name, limit: runtime.quotas[name] },
    },
    { 'retry-after': String(RETRY_AFTER_SECONDS[name]) },
  );
}

const QUOTA_NOUNS: Readonly<Record<QuotaName, string>> = {
  activeJobs: 'queued or running jobs',
  pendingApprovals: 'pending approvals',
  idempotencyKeys: 'idempotency keys in use',
};
