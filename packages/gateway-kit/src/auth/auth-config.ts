import type { Principal } from './principal.ts';

/**
 * A static bearer token. A plain string maps to the principal `{ id: 'default' }`, so tokens listed
 * for rotation (old and new) act as the same caller; give an explicit `principal` to separate callers.
 */
export type StaticToken = string | { readonly token: string; readonly principal: Principal };

/**
 * How the gateway authenticates callers: a list of static tokens (compared in constant time), or
 * a `verify` function returning the principal for a token, or `null` to refuse it.
 *
 * @example
 * const auth: AuthConfig = { tokens: [process.env.GATEWAY_TOKEN!] };
 * const custom: AuthConfig = { verify: async (token) => (await lookUp(token)) ?? null };
 */
export type AuthConfig =
  | { readonly tokens: readonly StaticToken[] }
  | {
      readonly verify: (
        token: string,
        request: { readonly header: (name: string) => string | undefined },
      ) => Principal | null | Promise<Principal | null>;
    };
