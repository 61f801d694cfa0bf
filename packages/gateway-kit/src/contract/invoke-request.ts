import * as v from 'valibot';
import { JsonObjectSchema } from './gateway-error.ts';

/** The three meeting-session modes the contract names. */
export type SessionMode = 'active' | 'passive' | 'listening';

/**
 * The body the hosted service POSTs to `/v1/invoke`: one action, with the meeting it runs in.
 *
 * @example
 * const body: InvokeRequest = {
 *   invocationId: 'inv_1',
 *   meeting: { id: 'm_1', roomName: 'Weekly sync' },
 *   session: { id: 's_1', mode: 'active' },
 *   action: { id: 'lookup-account', input: { accountId: 'acc_42' } },
 *   context: {},
 *   callbacks: {},
 * };
 */
export interface InvokeRequest {
  invocationId: string;
  idempotencyKey?: string;
  traceId?: string;
  /** RFC 3339 date-time after which the result is no longer useful. */
  deadlineAt?: string;
  meeting: { id: string; roomName: string };
  session: { id: string; mode: SessionMode };
  action: { input: Record<string, unknown>; id?: string; name?: string };
  context: Record<string, unknown>;
  callbacks: { jobResultUrl?: string; approvalUrl?: string; authorization?: string };
}

// Identifiers are opaque but must be present and bounded (the contract is silent; see docs/decisions.md).
const Identifier = v.pipe(v.string(), v.minLength(1), v.maxLength(1024));
const Url = v.pipe(v.string(), v.maxLength(2048), v.url());

/**
 * Schema of an {@link InvokeRequest}. Unknown properties are rejected at the top level and in
 * `meeting`, `session`, `action` and `callbacks`, as the contract requires; `action.input` and
 * `context` are free-form objects.
 *
 * @example
 * const result = v.safeParse(InvokeRequestSchema, body);
 * if (!result.success) console.log(result.issues);
 */
export const InvokeRequestSchema: v.GenericSchema<InvokeRequest> = v.strictObject({
  invocationId: Identifier,
  idempotencyKey: v.exactOptional(Identifier),
  traceId: v.exactOptional(v.pipe(v.string(), v.maxLength(1024))),
  deadlineAt: v.exactOptional(v.pipe(v.string(), v.isoTimestamp())),
  meeting: v.strictObject({ id: Identifier, roomName: v.pipe(v.string(), v.maxLength(1024)) }),
  session: v.strictObject({ id: Identifier, mode: v.picklist(['active', 'passive', 'listening']) }),
  action: v.strictObject({
    input: JsonObjectSchema,
    id: v.exactOptional(Identifier),
    name: v.exactOptional(Identifier),
  }),
  context: JsonObjectSchema,
  callbacks: v.strictObject({
    jobResultUrl: v.exactOptional(Url),
    approvalUrl: v.exactOptional(Url),
    authorization: v.exactOptional(v.pipe(v.string(), v.maxLength(8192))),
  }),
});
