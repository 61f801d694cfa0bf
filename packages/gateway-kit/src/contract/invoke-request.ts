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
  /** The hosted service's id of this invocation (at most 1024 characters). */
  invocationId: string;
  /** Retries with the same key get the same outcome (1–1024 characters); none: no deduplication. */
  idempotencyKey?: string;
  /** The hosted service's trace id, passed on to hooks and spans (at most 1024 characters). */
  traceId?: string;
  /** RFC 3339 date-time after which the result is no longer useful. */
  deadlineAt?: string;
  /** The meeting the action runs in. */
  meeting: {
    /** The meeting's id. */
    id: string;
    /** The meeting room's name. */
    roomName: string;
  };
  /** The meeting session that invokes the action. */
  session: {
    /** The session's id. */
    id: string;
    /** The session's mode: `active`, `passive` or `listening`. */
    mode: SessionMode;
  };
  /** The one action to run, named by `id`, `name` or both (which must name the same action). */
  action: {
    /** The action's input, validated against its schema. */
    input: Record<string, unknown>;
    /** The action's id. */
    id?: string;
    /** The action's name. */
    name?: string;
  };
  /** Free-form context from the hosted service, passed to the action as it is. */
  context: Record<string, unknown>;
  /** Where to report the outcome of async jobs and approvals; `{}` for none. */
  callbacks: {
    /** Receives the job-result callback when a job ends. */
    jobResultUrl?: string;
    /** Receives the approval callback when an approval is decided or expires. */
    approvalUrl?: string;
    /** Sent verbatim as the `Authorization` header of both callbacks. */
    authorization?: string;
  };
}

// Identifiers are opaque strings, bounded in length (the contract sets no limit; see docs/decisions.md).
const Identifier = v.pipe(v.string(), v.maxLength(1024));
// 1–1024 characters (docs/idempotency.md): an empty key would scope every keyless retry together.
const IdempotencyKey = v.pipe(
  v.string(),
  v.minLength(1, 'Expected a non-empty key (omit idempotencyKey to send none)'),
  v.maxLength(1024),
);
const Url = v.pipe(v.string(), v.maxLength(2048), v.url());
// RFC 3339 date-time (`T`/`Z` in either case, seconds required, numeric offsets with a colon):
// hours 00–23, minutes and seconds 00–59 (no leap second: no JavaScript clock reaches one).
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
/** Days of each month in a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether a string is an RFC 3339 date-time naming a real instant (`deadlineAt`): a day that its
 * month has (February 29 only in leap years). `Date.parse` alone rolls `02-30` over into March.
 *
 * @example
 * isDateTime('2028-02-29T10:00:00Z'); // true
 * isDateTime('2027-02-29T10:00:00Z'); // false
 */
export function isDateTime(value: string): boolean {
  const parts = RFC3339.exec(value);
  if (parts === null) return false;
  const year = Number(parts[1]);
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leapDay = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= MONTH_DAYS[month - 1]! + (leapDay ? 1 : 0);
}
const DateTime = v.pipe(v.string(), v.check(isDateTime, 'Expected an RFC 3339 date-time'));
// A header value: it is sent as the callbacks' Authorization header, so no control characters.
const HeaderValue = v.pipe(
  v.string(),
  v.maxLength(8192),
  v.regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'Expected a header-safe credential (no control characters)'),
);

/**
 * valibot's `strictObject` accepts an array (an object without unknown keys): `callbacks: []`,
 * whose keys are all optional, passed. A JSON array is not the object the contract names.
 */
function strictJsonObject<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.pipe(
    v.custom<v.InferInput<v.StrictObjectSchema<TEntries, undefined>>>(
      (value) => !Array.isArray(value),
      'Expected Object',
    ),
    v.strictObject(entries),
  );
}

/** Schema of an invoke's `callbacks` (part of {@link InvokeRequestSchema}). */
export const CallbacksSchema: v.GenericSchema<InvokeRequest['callbacks']> = strictJsonObject({
  jobResultUrl: v.exactOptional(Url),
  approvalUrl: v.exactOptional(Url),
  authorization: v.exactOptional(HeaderValue),
});

/**
 * Schema of an {@link InvokeRequest}. Unknown properties are rejected at the top level and in
 * `meeting`, `session`, `action` and `callbacks`, as the contract requires; `action.input` and
 * `context` are free-form objects.
 *
 * @example
 * const result = v.safeParse(InvokeRequestSchema, body);
 * if (!result.success) console.log(result.issues);
 */
export const InvokeRequestSchema: v.GenericSchema<InvokeRequest> = strictJsonObject({
  invocationId: Identifier,
  idempotencyKey: v.exactOptional(IdempotencyKey),
  traceId: v.exactOptional(v.pipe(v.string(), v.maxLength(1024))),
  deadlineAt: v.exactOptional(DateTime),
  meeting: strictJsonObject({ id: Identifier, roomName: v.pipe(v.string(), v.maxLength(1024)) }),
  session: strictJsonObject({
    id: Identifier,
    mode: v.picklist(['active', 'passive', 'listening']),
  }),
  action: strictJsonObject({
    input: JsonObjectSchema,
    id: v.exactOptional(Identifier),
    name: v.exactOptional(Identifier),
  }),
  context: JsonObjectSchema,
  callbacks: CallbacksSchema,
});
