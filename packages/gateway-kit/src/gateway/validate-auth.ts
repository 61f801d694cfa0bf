import * as v from 'valibot';
import { isPrincipalId, MAX_PRINCIPAL_ID_LENGTH } from '../auth/principal.ts';
import { assertOptions, fromEnv, optionsObject, whole } from '../runtime/option-schemas.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const Token = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.custom<string>(
    (token) => typeof token === 'string' && token.trim() !== '',
    /* @__PURE__ */ fromEnv('expected a non-empty token string.'),
  ),
  /* @__PURE__ */ v.check(
    (token) => token === token.trim(),
    'remove the spaces or line break around it.',
  ),
);

const TokenEntry = /* @__PURE__ */ v.lazy((entry) =>
  isObject(entry)
    ? /* @__PURE__ */ optionsObject(
        {
          token: Token,
          principal: /* @__PURE__ */ v.custom(
            (principal) => isObject(principal) && isPrincipalId(principal.id),
            `expected { id: string } with an id of 1 to ${MAX_PRINCIPAL_ID_LENGTH} characters.`,
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
export const AuthSchema: v.GenericSchema<Record<string, unknown>> = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.custom<Record<string, unknown>>(
    (auth) => isObject(auth) && ('tokens' in auth || 'verify' in auth),
    'expected { tokens: [...] } or { verify(token) }.',
  ),
  /* @__PURE__ */ v.check(
    (auth) => !('tokens' in auth && 'verify' in auth),
    /* @__PURE__ */ whole(
      'auth has both tokens and verify: keep one (verify may check static tokens itself).',
    ),
  ),
  /* @__PURE__ */ v.lazy((auth) =>
    'verify' in (auth as object)
      ? /* @__PURE__ */ v.looseObject({
          verify: /* @__PURE__ */ v.custom(
            (verify) => typeof verify === 'function',
            'expected a function.',
          ),
        })
      : /* @__PURE__ */ v.looseObject({
          tokens: /* @__PURE__ */ v.pipe(
            /* @__PURE__ */ v.custom<unknown[]>(
              (tokens) => Array.isArray(tokens) && tokens.length > 0,
              /* @__PURE__ */ fromEnv('expected a list of at least one token.'),
            ),
            /* @__PURE__ */ v.array(TokenEntry),
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
  assertOptions(/* @__PURE__ */ v.object({ auth: AuthSchema }), { auth }, factory);
}
