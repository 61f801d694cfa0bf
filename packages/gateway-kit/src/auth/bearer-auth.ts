import type { AuthConfig, StaticToken } from './auth-config.ts';
import type { Principal } from './principal.ts';

/** Authenticates the `Authorization` header of a call; resolves to the principal or `null`. */
export type Authenticator = (
  authorization: string | undefined,
  header: (name: string) => string | undefined,
) => Promise<Principal | null>;

const DEFAULT_PRINCIPAL: Principal = Object.freeze({ id: 'default' });
const encoder = new TextEncoder();

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

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/**
 * Builds the authenticator for a configuration. Static tokens are compared as SHA-256 digests so
 * that comparison time depends neither on the token's length nor on where it differs, and every
 * configured token is compared so timing does not reveal which one matched.
 */
export function createAuthenticator(config: AuthConfig): Authenticator {
  if ('verify' in config) {
    const verify = config.verify;
    return async (authorization, header) => {
      const token = bearerToken(authorization);
      if (token === undefined) return null;
      const principal = await verify(token, { header });
      return principal && typeof principal.id === 'string' ? principal : null;
    };
  }
  const entries = config.tokens.map((entry: StaticToken) =>
    typeof entry === 'string'
      ? { token: entry, principal: DEFAULT_PRINCIPAL }
      : { token: entry.token, principal: entry.principal },
  );
  // Digests are computed once, on first use (Web Crypto is asynchronous).
  let digests: Promise<Uint8Array[]> | undefined;
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return null;
    digests ??= Promise.all(entries.map((entry) => sha256(entry.token)));
    const [expected, presented] = await Promise.all([digests, sha256(token)]);
    let matched = -1;
    for (let i = 0; i < expected.length; i++) {
      const candidate = expected[i]!;
      let difference = 0;
      for (let b = 0; b < 32; b++) difference |= candidate[b]! ^ presented[b]!;
      // Branch-free select keeps the loop's work identical whichever token matches.
      matched = difference === 0 && matched === -1 ? i : matched;
    }
    return matched === -1 ? null : entries[matched]!.principal;
  };
}
