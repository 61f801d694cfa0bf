/** The three HTTP-date forms (IMF-fixdate, obsolete RFC 850, asctime) a recipient must accept. */
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT|[A-Z][a-z]+, \d\d-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})$/;

/**
 * Reads the server-requested delay from `retry-after-ms` (milliseconds, preferred
 * because it is precise) or `Retry-After` (delta seconds or an HTTP date).
 * Returns `undefined` when neither header is present, when the value is not one of those
 * forms (`Date.parse` would read `'soon 12'` as a date in 2001), or when the date is not in
 * the future: the client then uses its normal backoff rather than retrying at once.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  if (!HTTP_DATE.test(after)) return undefined;
  // asctime carries no zone: it is GMT by definition.
  const delay = Date.parse(after.endsWith('GMT') ? after : `${after} GMT`) - now;
  return delay > 0 ? delay : undefined;
}
