import { type AuthConfig, GatewayConfigError } from '@svc/gateway-kit';
import { GATEWAY_ERRORS } from '@svc/gateway-kit/contract';
import { type Refuse, refusalFor } from '@svc/gateway-kit/store';

/**
 * The answer to every request while the gateway's configuration is refused: the contract's error
 * envelope, `internal_error` as the gateway answers its own failures, and nothing about the
 * configuration (the caller may not be authenticated; the reason goes to the log).
 */
export function refusedResponse(): Response {
  const { status, retryable } = GATEWAY_ERRORS.internal_error;
  return Response.json(
    { error: { code: 'internal_error', message: 'The gateway failed unexpectedly.', retryable } },
    { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } },
  );
}

/** Whether `error` is the kit's refusal of a configuration (also from another copy of the kit). */
export function isConfigError(error: unknown): error is Error {
  return (
    error instanceof GatewayConfigError ||
    (error instanceof Error && error.name === 'GatewayConfigError')
  );
}

/** Refusals already logged by this isolate: each once, not once per request or per object. */
const logged = new Set<string>();

/**
 * Logs a refused configuration once per isolate. A `GatewayConfigError`'s message names the option
 * and the kind of value, never the value (tokens and secrets pass through the options).
 */
export function logRefusal(error: Error): void {
  if (logged.has(error.message)) return;
  logged.add(error.message);
  console.error(
    `@svc/gateway-kit-cloudflare: the gateway's configuration is refused, every request answers 500 internal_error until it is fixed: ${error.message}`,
  );
}

const refuse: Refuse = refusalFor('createGateway');
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkToken(token: unknown, path: string): void {
  if (typeof token !== 'string' || token.trim() === '')
    refuse(path, token, 'expected a non-empty token string.', true);
  if (token !== token.trim()) refuse(path, token, 'remove the spaces or line break around it.');
}

/**
 * Checks the `auth` option as `createGateway` does, with its messages (the router reads the
 * tokens before any object creates the gateway): `auth.tokens[0] is undefined: is an environment
 * variable unset? …`. Throws `GatewayConfigError`.
 */
export function checkAuth(auth: unknown): asserts auth is AuthConfig {
  if (!isObject(auth) || !('tokens' in auth || 'verify' in auth))
    refuse('auth', auth, 'expected { tokens: [...] } or { verify(token) }.');
  if ('tokens' in auth && 'verify' in auth)
    throw new GatewayConfigError(
      'createGateway: auth has both tokens and verify: keep one (verify may check static tokens itself).',
    );
  if ('verify' in auth) {
    if (typeof auth.verify !== 'function')
      refuse('auth.verify', auth.verify, 'expected a function.');
    return;
  }
  const tokens = auth.tokens;
  if (!Array.isArray(tokens) || tokens.length === 0)
    refuse('auth.tokens', tokens, 'expected a list of at least one token.', true);
  for (const [index, entry] of (tokens as unknown[]).entries()) {
    const path = `auth.tokens[${index}]`;
    if (!isObject(entry)) {
      checkToken(entry, path);
      continue;
    }
    checkToken(entry.token, `${path}.token`);
    const principal = entry.principal;
    // The gateway's rule for principal ids (1 to 512 characters), with its message.
    if (
      !isObject(principal) ||
      typeof principal.id !== 'string' ||
      principal.id.length === 0 ||
      principal.id.length > 512
    )
      refuse(
        `${path}.principal`,
        principal,
        'expected { id: string } with an id of 1 to 512 characters.',
      );
  }
}
