import type { Action } from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import { canonicalJson, sha256Hex } from '../gateway/fingerprint.ts';
import type { GatewayRuntime } from '../gateway/gateway-runtime.ts';
import type { GatewayReply } from '../http/gateway-call.ts';
import { errorReply } from '../http/replies.ts';

/** Where an idempotency key leads: stable ids derived from it, and the request's fingerprint. */
export interface IdempotencyScope {
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
export async function idempotencyScope(
  principal: Principal,
  action: Action,
  idempotencyKey: string,
  input: Record<string, unknown>,
): Promise<IdempotencyScope> {
  const [scopeId, fingerprint] = await Promise.all([
    sha256Hex(canonicalJson([principal.id, action.id, idempotencyKey])),
    sha256Hex(canonicalJson([action.id, input])),
  ]);
  return { scopeId, fingerprint };
}

/** A sync answer, and whether it invites a retry (crash of a retryable action, deadline, retryable refusal). */
export interface SyncOutcome {
  readonly reply: GatewayReply;
  readonly retryable: boolean;
}

interface SyncRecord {
  readonly fingerprint: string;
  readonly state: 'in_progress' | 'done';
  readonly reply?: { readonly status: number; readonly body: string };
}

/** The answer to a retry whose key was used for a different request. */
export function idempotencyMismatch(): GatewayReply {
  return errorReply('idempotency_mismatch');
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
  const claim = await runtime.records.create<SyncRecord>(
    key,
    { fingerprint: scope.fingerprint, state: 'in_progress' },
    // An abandoned claim (crashed process) frees itself once the run could no longer be going on.
    action.timeoutMs + 60_000,
  );
  if (!claim.created) {
    const existing = claim.record.value;
    if (existing.fingerprint !== scope.fingerprint) return idempotencyMismatch();
    if (existing.state === 'in_progress' || !existing.reply)
      return errorReply('idempotency_in_progress');
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
  let outcome: SyncOutcome;
  try {
    outcome = await run();
  } catch (error) {
    await runtime.records.delete(key, claim.record.version).catch(() => false);
    throw error;
  }
  const { reply } = outcome;
  // A retryable answer invites a retry: replaying it would defeat that, so the key is released.
  // A final answer — including a crash of a non-idempotent action — is stored and replayed, so a
  // retry can never run a side effect twice.
  if (!outcome.retryable && typeof reply.body === 'string') {
    const done: SyncRecord = {
      fingerprint: scope.fingerprint,
      state: 'done',
      reply: { status: reply.status, body: reply.body },
    };
    await runtime.records.replace(key, claim.record.version, done, runtime.idempotencyTtlMs);
  } else {
    await runtime.records.delete(key, claim.record.version);
  }
  return reply;
}
