import * as v from 'valibot';
import { assertOptions, fromEnv, optionsObject, whole } from '../runtime/option-schemas.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const Token = v.pipe(
  v.custom<string>(
    (token) => typeof token === 'string' && token.trim() !== '',
    fromEnv('expected a non-empty token string.'),
  ),
  v.check((token) => token === token.trim(), 'remove the spaces or line break around it.'),
);

const TokenEntry = v.lazy((entry) =>
  isObject(entry)
    ? optionsObject(
        {
          token: Token,
          principal: v.custom(
            (principal) => isObject(principal) && typeof principal.id === 'string',
            'expected { id: string }.',
          ),
        },
        'expected { token, principal }.',
      )
    : Token,
);

/**
 * The schema of an `auth` option (`{ tokens }` or `{ verify }`) of `createGateway` and
 * `createApprovalsHandler`; its messages name the kind of value, never the token.
 */
export const AuthSchema: v.GenericSchema<Record<string, unknown>> = v.pipe(
  v.custom<Record<string, unknown>>(
    (auth) => isObject(auth) && ('tokens' in auth || 'verify' in auth),
    'expected { tokens: [...] } or { verify(token) }.',
  ),
  v.check(
    (auth) => !('tokens' in auth && 'verify' in auth),
    whole('auth has both tokens and verify: keep one (verify may check static tokens itself).'),
  ),
  v.lazy((auth) =>
    'verify' in (auth as object)
      ? v.looseObject({
          verify: v.custom((verify) => typeof verify === 'function', 'expected a function.'),
        })
      : v.looseObject({
          tokens: v.pipe(
            v.custom<unknown[]>(
              (tokens) => Array.isArray(tokens) && tokens.length > 0,
              fromEnv('expected a list of at least one token.'),
            ),
            v.array(TokenEntry),
          ),
        }),
  ),
);

/**
 * Checks an `auth` option of `createGateway` or `createApprovalsHandler`, throwing a
 * `GatewayConfigError` that names the path and the kind of value, never the token.
 *
 * @example
 * validateAuth({ tokens: [process.env.UNSET] }, 'createApprovalsHandler');
 * // createApprovalsHandler: auth.tokens[0] is undefined: is an environment variable unset? (expected a non-empty token string)
 */
export function validateAuth(auth: unknown, factory: string): void {
  assertOptions(v.object({ auth: AuthSchema }), { auth }, factory);
}
