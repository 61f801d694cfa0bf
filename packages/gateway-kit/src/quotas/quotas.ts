import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { GatewayReply } from '../http/gateway-call.ts';
import { errorReply } from '../http/replies.ts';
import type { SetAddition, SetMember } from '../records/record-store.ts';
import { addToSets, removeFromSets } from '../records/set-batches.ts';
import type { QuotaName } from '../runtime/limits.ts';
import { logWarning } from '../runtime/logger.ts';
import type { JobQuotaClaim } from '../store/job-store.ts';

// What `Retry-After` says when a budget is spent: about how soon one entry frees up.
const RETRY_AFTER_SECONDS: Readonly<Record<QuotaName, number>> = {
  activeJobs: 5,
  pendingApprovals: 60,
  idempotencyKeys: 60,
  heldBytes: 5,
  replayBytes: 60,
  concurrentInvokes: 1,
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
    logWarning(runtime.logger, 'quota release failed; it frees itself when it expires', {
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
  replayBytes: 'bytes of answers kept for replay',
  concurrentInvokes: 'invokes in progress',
};

/** The unit `heldBytes` is counted in: each unit is one member of the principal's set. */
export const HELD_BYTES_UNIT: number = 16 * 1024;

/** How many {@link HELD_BYTES_UNIT}s `bytes` take (at least one). */
export function heldUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / HELD_BYTES_UNIT));
}

const maxHeldUnits = (runtime: GatewayRuntime): number =>
  Math.max(1, Math.floor(runtime.quotas.heldBytes / HELD_BYTES_UNIT));

/**
 * What a job counts against its principal: one `activeJobs` unit (member `jobId`) and `units` of
 * `heldBytes` (members `jobId#0…`).
 */
function jobUnits(
  runtime: GatewayRuntime,
  principalId: string,
  jobId: string,
  units: number,
  ttlMs: number,
): SetAddition[] {
  const heldSet = setOf('heldBytes', principalId);
  const maxHeld = maxHeldUnits(runtime);
  const entries: SetAddition[] = [
    {
      set: setOf('activeJobs', principalId),
      member: jobId,
      ttlMs,
      maxSize: runtime.quotas.activeJobs,
    },
  ];
  for (let unit = 0; unit < units; unit++)
    entries.push({ set: heldSet, member: `${jobId}#${unit}`, ttlMs, maxSize: maxHeld });
  return entries;
}

/**
 * Takes a new job's budgets of `principalId`, all or none, for at most `ttlMs`: one `activeJobs`
 * unit and `units` of `heldBytes` (one round trip with a store that has `addToSets`). Resolves the
 * budget that is spent, having taken nothing, or `undefined` when the job fits.
 */
export async function claimJobQuotas(
  runtime: GatewayRuntime,
  principalId: string,
  jobId: string,
  units: number,
  ttlMs: number,
): Promise<'activeJobs' | 'heldBytes' | undefined> {
  const refused = await addToSets(
    runtime.records,
    jobUnits(runtime, principalId, jobId, units, ttlMs),
  );
  if (refused === -1) return undefined;
  return refused === 0 ? 'activeJobs' : 'heldBytes';
}

/**
 * A new job's budgets as a job store that keeps them takes them (`JobStore.claimsJobQuotas`): the
 * same bounds {@link claimJobQuotas} claims in the record store.
 */
export function jobQuotaClaim(
  runtime: GatewayRuntime,
  units: number,
  ttlMs: number,
): JobQuotaClaim {
  return {
    maxActive: runtime.quotas.activeJobs,
    units,
    maxUnits: maxHeldUnits(runtime),
    ttlMs,
  };
}

/**
 * Gives back what {@link claimJobQuotas} took for job `jobId`. Never rejects: a release that fails
 * is logged, and the units free themselves when their time to live runs out.
 */
export async function releaseJobQuotas(
  runtime: GatewayRuntime,
  principalId: string,
  jobId: string,
  units: number,
): Promise<void> {
  const entries: SetMember[] = jobUnits(runtime, principalId, jobId, units, 0);
  try {
    await removeFromSets(runtime.records, entries);
  } catch (error) {
    logWarning(runtime.logger, 'quota release failed; it frees itself when it expires', {
      quota: 'activeJobs',
      error,
    });
  }
}

/**
 * Takes what keeping an idempotent answer of `bytes` for replay costs `principalId`: its
 * {@link HELD_BYTES_UNIT}s past the first (which the key's `idempotencyKeys` unit pays for), as
 * members `scopeId#1…` of the principal's `replayBytes` set, all or none, for `ttlMs`. `true` when
 * they fit (at once, with no store call, for an answer of one unit); `false`, having taken
 * nothing, when the principal's budget is spent: the answer is then not kept.
 *
 * @example
 * const kept = await claimReplayBytes(runtime, 'p1', scopeId, 40_000, 86_400_000); // 2 units
 */
export async function claimReplayBytes(
  runtime: GatewayRuntime,
  principalId: string,
  scopeId: string,
  bytes: number,
  ttlMs: number,
): Promise<boolean> {
  const units = heldUnits(bytes);
  if (units === 1) return true;
  const set = setOf('replayBytes', principalId);
  const maxSize = Math.max(1, Math.floor(runtime.quotas.replayBytes / HELD_BYTES_UNIT));
  const entries: SetAddition[] = [];
  for (let unit = 1; unit < units; unit++)
    entries.push({ set, member: `${scopeId}#${unit}`, ttlMs, maxSize });
  return (await addToSets(runtime.records, entries)) === -1;
}
