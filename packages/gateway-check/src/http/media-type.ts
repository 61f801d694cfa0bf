/**
 * Whether a `Content-Type` header value names `application/json`: type and subtype in any case,
 * any parameters (`; charset=utf-8`). `null` (no header), another type and the `+json` types
 * (`application/problem+json`) are not: a client that dispatches on the media type would not read
 * them as JSON.
 *
 * @example
 * isJsonMediaType('Application/JSON; charset=utf-8'); // true
 * isJsonMediaType('text/plain'); // false
 */
export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const essence = contentType.split(';', 1)[0] ?? '';
  return essence.trim().toLowerCase() === 'application/json';
}
