import type { CallbackUrlPolicy, ResolveHost } from '../callbacks/callback-url-guard.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';

/**
 * The key under which a gateway exposes its core handler to runtime adapters. `Symbol.for` keeps
 * it identical across the ESM and CJS builds and across bundled copies.
 */
export const HANDLE_CALL: unique symbol = Symbol.for('@svc/gateway-kit/handle-call') as never;

/**
 * The key under which a gateway exposes its core handler in callback form: `done` receives the
 * reply, with no promise of its own in between (one promise and one microtask fewer per request
 * than {@link HANDLE_CALL}, for adapters on the hot path).
 */
export const RESPOND: unique symbol = Symbol.for('@svc/gateway-kit/respond') as never;

/** The core handler in callback form: calls `done` once with the reply; never throws. */
export type Respond = (call: GatewayCall, done: (reply: GatewayReply) => void) => void;

/** The callback form of a handler's core, if it has one (a gateway does). */
export function responderOf(handler: object): Respond | undefined {
  const respond = (handler as unknown as Record<symbol, Respond | undefined>)[RESPOND];
  return typeof respond === 'function' ? respond : undefined;
}

/** Marks a handler whose calls must carry `query` (adapters leave it out otherwise). */
export const WANTS_QUERY: unique symbol = Symbol.for('@svc/gateway-kit/wants-query') as never;

/** The core handler behind `gateway.fetch`, for adapters that skip Web Request/Response objects. */
export type HandleCall = (call: GatewayCall) => Promise<GatewayReply>;

/**
 * Returns the gateway's core handler. Throws if `gateway` was not made by `createGateway`.
 */
export function handlerOf(gateway: object): HandleCall {
  const handle = (gateway as unknown as Record<symbol, HandleCall | undefined>)[HANDLE_CALL];
  if (typeof handle !== 'function')
    throw new TypeError('Expected a gateway made by createGateway().');
  return handle;
}

/** What a runtime adapter may supply for callbacks, given the gateway's callback URL policy. */
export type CallbackRuntimeDefaults = (urlPolicy: CallbackUrlPolicy) => {
  readonly fetch?: typeof fetch;
  readonly resolveHost?: ResolveHost;
};

/** The key under which a gateway accepts a runtime adapter's callback defaults. */
export const CALLBACK_DEFAULTS: unique symbol = Symbol.for(
  '@svc/gateway-kit/callback-defaults',
) as never;

/**
 * Hands a runtime adapter's callback `fetch` / `resolveHost` to a gateway, where its options set
 * none. Does nothing for a gateway without callbacks or not made by `createGateway`.
 */
export function supplyCallbackDefaults(gateway: object, defaults: CallbackRuntimeDefaults): void {
  const supply = (gateway as unknown as Record<symbol, unknown>)[CALLBACK_DEFAULTS];
  if (typeof supply === 'function') (supply as (d: CallbackRuntimeDefaults) => void)(defaults);
}
