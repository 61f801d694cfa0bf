/** What replaces a secret wherever it would otherwise surface. */
export const REDACTED = '[redacted]';

/**
 * Returns `value` with every occurrence of `secret` in any string (deeply) replaced by
 * `[redacted]`. Used on error bodies and messages, because a service may echo the
 * credential it rejected.
 */
export function redact<T>(value: T, secret: string | undefined): T {
  // Any non-empty key is redacted, however short: a short key is still a key.
  if (secret === undefined || secret === '') return value;
  const walk = (input: unknown): unknown => {
    if (typeof input === 'string') return input.split(secret).join(REDACTED);
    if (Array.isArray(input)) return input.map(walk);
    if (input !== null && typeof input === 'object') {
      return Object.fromEntries(Object.entries(input).map(([key, inner]) => [key, walk(inner)]));
    }
    return input;
  };
  return walk(value) as T;
}
