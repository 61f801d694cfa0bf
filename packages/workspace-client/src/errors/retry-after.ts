/**
 * Reads the server-requested delay from `retry-after-ms` (milliseconds, preferred
 * because it is precise) or `Retry-After` (delta seconds or an HTTP date).
 * Returns `undefined` when neither header is present or parseable.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
