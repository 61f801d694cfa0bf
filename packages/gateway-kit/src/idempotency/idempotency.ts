import type { Action } from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import type { GatewayReply } from '../http/gateway-call.ts';
import { utf8Length } from '../http/json-size.ts';
import { errorReply } from '../http/replies.ts';
import {
  claimQuota,
  claimReplayBytes,
  extendQuota,
  quotaExceeded,
  releaseQuota,
} from '../quotas/quotas.ts';
import type { VersionedRecord } from '../records/record-store.ts';
import { canonicalJson } from '../runtime/fingerprint.ts';
import { sha256Hex } from '../runtime/sha256.ts';

/** Where an idempotency key leads: stable ids derived from it, and the request's fingerprint. */
export interface IdempotencyScope {
  /** The principal the key belongs to (its budget pays for the record). */
  readonly principalId: string;
  /** Hex digest of principal + action + key: the same for every retry of one request. */
  readonly scopeId: string;
  /** Hex digest of the canonical action id + input: differs when the retry is not the same request. */
  readonly fingerprint: string;
}

/**
 * Scopes an idempotency key to the principal and the action, and fingerprints the request.
 *
 * @example
 * const scope = await idempotencyScope(principal, action, 'key-1', { orderId: 'o1' });
 */
export function idempotencyScope(
  principal: Principal,
  action: Action,
  idempotencyKey: string,
  input: Record<string, unknown>,
): IdempotencyScope {
  return {
    principalId: principal.id,
    scopeId: sha256Hex(canonicalJson([principal.id, action.id, idempotencyKey])),
    fingerprint: sha256Hex(canonicalJson([action.id, input])),
  };
}

/** A sync answer, and whether it invites a retry (crash of a retryable action, deadline, retryable refusal). */
export interface SyncOutcome {
  readonly reply: GatewayReply;
  readonly retryable: boolean;
}

interface SyncRecord {
  readonly fingerprint: string;
  readonly state: 'in_progress' | 'done';
  /** Absent on a `done` record whose answer was over `limits.maxResultBytes` or `quotas.replayBytes`. */
  readonly reply?: { readonly status: number; readonly body: string };
}

/** The answer to a retry whose key was used for a different request. */
export function idempotencyMismatch(): GatewayReply {
  return errorReply('idempotency_mismatch');
}

/** What a request finds under a key another request already holds: its answer, a 409 or a 422. */
function replayOf(existing: SyncRecord, scope: IdempotencyScope): GatewayReply {
  if (existing.fingerprint !== scope.fingerprint) return idempotencyMismatch();
  if (existing.state === 'in_progress') return errorReply('idempotency_in_progress');
  if (!existing.reply) return errorReply('idempotency_replay_unavailable');
  return {
    status: existing.reply.status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'idempotent-replayed': 'true',
    },
    body: existing.reply.body,
  };
}

/**
 * What a sync invoke's key already holds, read without claiming it: the answer (or 409 / 422)
 * {@link runIdempotentSync} would give, or `undefined` when no request holds the key yet. Lets
 * a retry be answered before user code that runs ahead of the claim (a precheck) runs again.
 */
export async function storedSyncAnswer(
  runtime: GatewayRuntime,
  scope: IdempotencyScope,
): Promise<GatewayReply | undefined> {
  const stored = await runtime.records.get<SyncRecord>(`idem:${scope.scopeId}`);
  return stored && replayOf(stored.value, scope);
}

/**
 * Runs a sync invoke at most once per idempotency scope. The first request claims the key
 * (atomic create-if-absent) and runs; a retry with the same fingerprint gets the stored answer
 * replayed, one that arrives while the first is still running gets `409`, and one with a different
 * fingerprint gets `422 idempotency_mismatch`. Answers that say "try again" (a crash of a retryable
 * action, a deadline) release the key, so the retry really runs again.
 */
export async function runIdempotentSync(
  runtime: GatewayRuntime,
  scope: IdempotencyScope,
  action: Action,
  run: () => SyncOutcome | Promise<SyncOutcome>,
): Promise<GatewayReply> {
  const key = `idem:${scope.scopeId}`;
  // An abandoned claim (crashed process) frees itself once the run could no longer be going on.
  const claimTtlMs = action.timeoutMs + 60_000;
  const principalId = scope.principalId;
  // A new key counts against its principal's budget for as long as its record lives.
  if (!(await claimQuota(runtime, 'idempotencyKeys', principalId, scope.scopeId, claimTtlMs)))
    return quotaExceeded(runtime, 'idempotencyKeys');
  let claim: { readonly created: boolean; readonly record: VersionedRecord<SyncRecord> };
  try {
    claim = await runtime.records.create<SyncRecord>(
      key,
      { fingerprint: scope.fingerprint, state: 'in_progress' },
      claimTtlMs,
    );
  } catch (error) {
    await releaseQuota(runtime, 'idempotencyKeys', principalId, scope.scopeId);
    throw error;
  }
  if (!claim.created) return replayOf(claim.record.value, scope);
  const release = async (): Promise<void> => {
    await runtime.records.delete(key, claim.record.version).catch(() => false);
    await releaseQuota(runtime, 'idempotencyKeys', principalId, scope.scopeId);
  };
  let outcome: SyncOutcome;
  try {
    outcome = await run();
  } catch (error) {
    await release();
    throw error;
  }
  const { reply } = outcome;
  // A retryable answer invites a retry: replaying it would defeat that, so the key is released.
  // A final answer — including a crash of a non-idempotent action — is stored and replayed, so a
  // retry can never run a side effect twice. One too large to keep (over `maxResultBytes`, or
  // past its principal's `replayBytes`) is remembered as answered.
  if (!outcome.retryable && typeof reply.body === 'string') {
    const bytes = utf8Length(reply.body);
    const kept =
      bytes <= runtime.limits.maxResultBytes &&
      (await claimReplayBytes(
        runtime,
        principalId,
        scope.scopeId,
        bytes,
        runtime.idempotencyTtlMs,
      ));
    const done: SyncRecord = {
      fingerprint: scope.fingerprint,
      state: 'done',
      ...(kept ? { reply: { status: reply.status, body: reply.body } } : {}),
    };
    await runtime.records.replace(key, claim.record.version, done, runtime.idempotencyTtlMs);
    await extendQuota(
      runtime,
      'idempotencyKeys',
      principalId,
      scope.scopeId,
      runtime.idempotencyTtlMs,
    );
  } else {
    await release();
  }
  return reply;
}
