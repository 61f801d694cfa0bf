import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { GatewayReply } from '../http/gateway-call.ts';
import { errorReply } from '../http/replies.ts';
import type { QuotaName } from '../runtime/limits.ts';

// What `Retry-After` says when a budget is spent: about how soon one entry frees up.
const RETRY_AFTER_SECONDS: Readonly<Record<QuotaName, number>> = {
  activeJobs: 5,
  pendingApprovals: 60,
  idempotencyKeys: 60,
  heldBytes: 5,
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
  heldBytes: 'bytes held for queued or running jobs',
};

/** The unit `heldBytes` is counted in: each unit is one member of the principal's set. */
export const HELD_BYTES_UNIT: number = 16 * 1024;

/** How many {@link HELD_BYTES_UNIT}s `bytes` take (at least one). */
export function heldUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / HELD_BYTES_UNIT));
}

/**
 * Takes `units` of `principalId`'s `heldBytes` budget for job `jobId` (members `jobId#0…`), for at
 * most `ttlMs`; `false`, having taken none, when they do not all fit.
 */
export async function claimHeldBytes(
  runtime: GatewayRuntime,
  principalId: string,
  jobId: string,
  units: number,
  ttlMs: number,
): Promise<boolean> {
  const max = Math.max(1, Math.floor(runtime.quotas.heldBytes / HELD_BYTES_UNIT));
  const set = setOf('heldBytes', principalId);
  // The common case (a request under 16 KiB): one claim, nothing to undo when it is refused.
  if (units === 1) {
    try {
      return await runtime.records.addToSet(set, `${jobId}#0`, ttlMs, max);
    } catch (error) {
      await releaseHeldBytes(runtime, principalId, jobId, units);
      throw error;
    }
  }
  const taken = await Promise.allSettled(
    Array.from({ length: units }, (_, unit) =>
      runtime.records.addToSet(set, `${jobId}#${unit}`, ttlMs, max),
    ),
  );
  if (taken.every((result) => result.status === 'fulfilled' && result.value)) return true;
  await releaseHeldBytes(runtime, principalId, jobId, units);
  const failed = taken.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return false;
}

/** Gives back the `units` job `jobId` took of `principalId`'s `heldBytes`. Never rejects. */
export async function releaseHeldBytes(
  runtime: GatewayRuntime,
  principalId: string,
  jobId: string,
  units: number,
): Promise<void> {
  if (units === 1) return releaseQuota(runtime, 'heldBytes', principalId, `${jobId}#0`);
  await Promise.all(
    Array.from({ length: units }, (_, unit) =>
      releaseQuota(runtime, 'heldBytes', principalId, `${jobId}#${unit}`),
    ),
  );
}
