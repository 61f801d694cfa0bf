import type { Principal } from './principal.ts';

/**
 * A static bearer token. A plain string maps to the principal `{ id: 'default' }`, so tokens listed
 * for rotation (old and new) act as the same caller; give an explicit `principal` to separate callers.
 */
export type StaticToken =
  | string
  | {
      /** The bearer token. */
      readonly token: string;
      /** The caller this token authenticates as. */
      readonly principal: Principal;
    };

/**
 * How the gateway authenticates callers: a list of static tokens (compared in constant time), or
 * a `verify` function returning the principal for a token, or `null` to refuse it.
 *
 * @example
 * const auth: AuthConfig = { tokens: [process.env.GATEWAY_TOKEN!] };
 * const custom: AuthConfig = { verify: async (token) => (await lookUp(token)) ?? null };
 */
export type AuthConfig =
  | {
      /** The accepted bearer tokens. */
      readonly tokens: readonly StaticToken[];
    }
  | {
      /**
       * Returns the principal for a bearer token, or `null` to refuse it (`401`). `header` reads
       * the request's headers.
       */
      readonly verify: (
        token: string,
        request: { readonly header: (name: string) => string | undefined },
      ) => Principal | null | Promise<Principal | null>;
    };
