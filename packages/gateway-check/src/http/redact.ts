/** What replaces the token wherever a gateway's answer would show it. */
export const REDACTED = '[redacted]';

/** The shortest token looked for in answers (8 characters). */
export const MIN_REDACTED_LENGTH = 8;

/**
 * `value` with every occurrence of `secret` in any string (deeply) replaced by `[redacted]`: a
 * gateway may echo the credential it was sent (in an error message, a header, any field), and
 * what it answers ends up in reports, JUnit files and error messages. A copy of
 * `@svc/workspace-client`'s `redact`: the checker depends on no other package of this repository.
 *
 * @example
 * redact({ message: 'token abc refused' }, 'abc'); // { message: 'token [redacted] refused' }
 */
export function redact<T>(value: T, secret: string | undefined): T {
  // A token shorter than this is not looked for: it would match ordinary text (`t` in every URL)
  // and the answers, which are checked after this, would read broken.
  if (secret === undefined || secret.length < MIN_REDACTED_LENGTH) return value;
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
