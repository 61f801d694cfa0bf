import { type Refuse, refusalFor } from '../runtime/config-refusal.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks an `auth` option (`{ tokens }` or `{ verify }`) of `createGateway` or
 * `createApprovalsHandler`, throwing a `GatewayConfigError` that names the path and the kind of
 * value, never the token.
 *
 * @example
 * validateAuth({ tokens: [process.env.UNSET] }, 'createApprovalsHandler');
 * // createApprovalsHandler: auth.tokens[0] is undefined: is an environment variable unset? (expected a non-empty token string)
 */
export function validateAuth(auth: unknown, factory: string): void {
  const refuse: Refuse = refusalFor(factory);
  if (!isObject(auth) || (!('tokens' in auth) && !('verify' in auth))) {
    refuse('auth', auth, 'expected { tokens: [...] } or { verify(token) }.');
  }
  if ('tokens' in auth && 'verify' in auth) {
    throw new GatewayConfigError(
      `${factory}: auth has both tokens and verify: keep one (verify may check static tokens itself).`,
    );
  }
  if ('verify' in auth) {
    if (typeof auth.verify !== 'function')
      refuse('auth.verify', auth.verify, 'expected a function.');
    return;
  }
  const tokens = auth.tokens;
  if (!Array.isArray(tokens) || tokens.length === 0) {
    refuse('auth.tokens', tokens, 'expected a list of at least one token.', true);
  }
  tokens.forEach((entry: unknown, index) => {
    const path = `auth.tokens[${index}]`;
    if (isObject(entry)) {
      checkToken(refuse, `${path}.token`, entry.token);
      if (!isObject(entry.principal) || typeof entry.principal.id !== 'string') {
        refuse(`${path}.principal`, entry.principal, 'expected { id: string }.');
      }
    } else checkToken(refuse, path, entry);
  });
}

function checkToken(refuse: Refuse, path: string, token: unknown): void {
  if (typeof token !== 'string' || token.trim() === '') {
    refuse(path, token, 'expected a non-empty token string.', true);
  }
  if (token !== token.trim()) refuse(path, token, 'remove the spaces or line break around it.');
}
