import type { AuthConfig, StaticToken } from './auth-config.ts';
import { isPrincipalId, MAX_PRINCIPAL_ID_LENGTH, type Principal } from './principal.ts';

/** What an authenticator may read of a request besides `Authorization`: its other headers. */
export interface HeaderSource {
  header(name: string): string | undefined;
}

/** Authenticates the `Authorization` header of a call; resolves to the principal or `null`. */
export type Authenticator = (
  authorization: string | undefined,
  request: HeaderSource,
) => Principal | null | Promise<Principal | null>;

const DEFAULT_PRINCIPAL: Principal = Object.freeze({ id: 'default' });

/**
 * Extracts the token of `Authorization: Bearer <token>` (scheme case-insensitive, one space or
 * more). Anything else, including an empty token, yields `undefined`.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization || authorization.length < 8) return undefined;
  if (authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token.length > 0 ? token : undefined;
}

/**
 * Compares a presented token with a configured one in time that depends only on the presented
 * token's length (which its sender knows): every character is compared, the configured token is
 * read modulo its length, and a length difference is folded into the result instead of returning
 * early. Synchronous on purpose: a Web Crypto digest per request costs a thread-pool round trip
 * (~25 µs on Node), more than the rest of an invoke.
 */
function constantTimeEquals(presented: string, expected: string): boolean {
  let difference = presented.length ^ expected.length;
  for (let i = 0; i < presented.length; i++) {
    difference |= presented.charCodeAt(i) ^ expected.charCodeAt(i % expected.length);
  }
  return difference === 0;
}

/**
 * Builds the authenticator for a configuration. Static tokens are compared in constant time (see
 * `constantTimeEquals`), and every configured token is compared, so timing reveals neither where a
 * guess differs nor which token matched.
 */
export function createAuthenticator(config: AuthConfig): Authenticator {
  if ('verify' in config) {
    const verify = config.verify;
    return async (authorization, request) => {
      const token = bearerToken(authorization);
      if (token === undefined) return null;
      // `verify` may keep or pass on `header`: a function of its own, bound to this request.
      const principal = await verify(token, { header: (name) => request.header(name) });
      if (!principal || typeof principal.id !== 'string') return null;
      // A bug of `verify`, not a refused token: answered 500 and logged, like a `verify` that throws.
      if (!isPrincipalId(principal.id))
        throw new TypeError(
          `auth.verify returned a principal id of ${principal.id.length} characters: expected 1 to ${MAX_PRINCIPAL_ID_LENGTH}.`,
        );
      return principal;
    };
  }
  const entries = config.tokens.map((entry: StaticToken) =>
    typeof entry === 'string'
      ? { token: entry, principal: DEFAULT_PRINCIPAL }
      : { token: entry.token, principal: entry.principal },
  );
  // Synchronous: static tokens need no await on the hot path.
  return (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return null;
    let matched = -1;
    for (let i = 0; i < entries.length; i++) {
      const equal = constantTimeEquals(token, entries[i]!.token);
      // Branch-free select keeps the loop's work identical whichever token matches.
      matched = equal && matched === -1 ? i : matched;
    }
    return matched === -1 ? null : entries[matched]!.principal;
  };
}
