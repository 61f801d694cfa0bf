// Shared by the three servers and the runner, so that every server sees the same body, token
// and action, and answers with the same bytes.
import * as v from 'valibot';

export const TOKEN = 'bench-token-7d1f0c2b9a8e4f6d';
export const ACTION_ID = 'lookup-account';

/**
 * The invoke body every request carries (~400 bytes, realistic field sizes). No idempotencyKey:
 * the bare and Hono servers do no deduplication, so the comparison is of the same work; the
 * kit's idempotency cost is measured separately (validation.mjs, `gatewayFetchIdempotent`).
 */
export const BODY = JSON.stringify({
  invocationId: 'inv_01J9Z8Q4W6X3M2N7P5R8T0V1B2',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  meeting: { id: 'mtg_0042', roomName: 'Weekly pipeline review' },
  session: { id: 'sess_0009', mode: 'active' },
  action: {
    id: ACTION_ID,
    input: { accountId: 'acc_123456', fields: ['status', 'owner', 'plan'], includeHistory: false },
  },
  context: { locale: 'en-GB', speaker: 'Dana Kowalski', agenda: 'renewals and churn risks' },
  callbacks: {},
});

export const REQUEST_HEADERS = {
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
};

/** Input schema of the benchmarked action (used as is by all three servers). */
export const LookupInput = v.object({
  accountId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  fields: v.array(v.picklist(['status', 'owner', 'plan', 'region'])),
  includeHistory: v.optional(v.boolean()),
});

/** The action's work: deterministic, so every server's answer is byte-identical. */
export function lookupAccount(input) {
  return {
    outputText: `Account ${input.accountId} is active.`,
    data: { accountId: input.accountId, status: 'active', owner: 'Dana Kowalski', plan: 'team' },
  };
}

/**
 * The handler every server runs, as users write it: `async` by default (`BENCH_HANDLER=async`,
 * what the README shows: `run: async (input) => …`), or a plain function (`BENCH_HANDLER=sync`).
 */
export const HANDLER_MODE = process.env.BENCH_HANDLER === 'sync' ? 'sync' : 'async';
export const runLookup =
  HANDLER_MODE === 'sync' ? lookupAccount : async (input) => lookupAccount(input);

/**
 * Hand-written equivalent of the gateway's request schema (contract section A: strict objects
 * where the contract rejects unknown properties, free-form `context` and `action.input`). The
 * baselines use it instead of importing the package's schema, as a team without the kit would.
 */
const Identifier = v.pipe(v.string(), v.minLength(1), v.maxLength(1024));
export const Url = v.pipe(v.string(), v.maxLength(2048), v.url());
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const JsonObject = v.record(v.string(), v.unknown());
export const InvokeRequest = v.strictObject({
  invocationId: Identifier,
  idempotencyKey: v.exactOptional(Identifier),
  traceId: v.exactOptional(v.pipe(v.string(), v.maxLength(1024))),
  deadlineAt: v.exactOptional(Timestamp),
  meeting: v.strictObject({ id: Identifier, roomName: v.pipe(v.string(), v.maxLength(1024)) }),
  session: v.strictObject({ id: Identifier, mode: v.picklist(['active', 'passive', 'listening']) }),
  action: v.strictObject({
    input: JsonObject,
    id: v.exactOptional(Identifier),
    name: v.exactOptional(Identifier),
  }),
  context: JsonObject,
  callbacks: v.strictObject({
    jobResultUrl: v.exactOptional(Url),
    approvalUrl: v.exactOptional(Url),
    authorization: v.exactOptional(v.pipe(v.string(), v.maxLength(8192))),
  }),
});

/** The headers every server answers with (the gateway's own: JSON, never cached). */
export const RESPONSE_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** `{ error }` envelope, for the baselines' refusals (never hit during the load). */
export function envelope(code, message) {
  return JSON.stringify({ error: { code, message, retryable: false } });
}

/**
 * The bearer check every baseline makes, the same one the gateway makes: scheme case-insensitive,
 * then a comparison whose time depends only on the presented token's length (every character
 * compared, no early return). No hashing: the gateway does not hash either.
 */
export function authorized(header) {
  if (typeof header !== 'string' || header.slice(0, 7).toLowerCase() !== 'bearer ') return false;
  const presented = header.slice(7).trim();
  let difference = presented.length ^ TOKEN.length;
  for (let i = 0; i < presented.length; i++) {
    difference |= presented.charCodeAt(i) ^ TOKEN.charCodeAt(i % TOKEN.length);
  }
  return presented.length > 0 && difference === 0;
}
