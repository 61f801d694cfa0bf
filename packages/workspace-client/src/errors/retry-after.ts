/** The three HTTP-date forms (IMF-fixdate, obsolete RFC 850, asctime) a recipient must accept. */
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT|[A-Z][a-z]+, \d\d-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})$/;

/**
 * Reads the server-requested delay from `retry-after-ms` (milliseconds, preferred
 * because it is precise) or `Retry-After` (see {@link parseRetryAfter}).
 * Returns `undefined` when neither header carries a usable value: the client then uses its
 * normal backoff.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  return parseRetryAfter(headers.get('retry-after'), now);
}

/**
 * Parses a `Retry-After` value into milliseconds from `now`: delay-seconds (a whole number), or an
 * HTTP date in one of RFC 9110's three forms, where a date in the past means 0 (retry now).
 * `undefined` when absent or in none of those forms (`Date.parse` would read `'soon 12'` as a
 * date in 2001). The rule `@svc/gateway-kit` applies to callback receivers too
 * (docs/decisions.md, "Retry-After").
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  // asctime carries no zone: it is GMT by definition.
  const date = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
