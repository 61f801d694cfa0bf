import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import type { Gateway } from './create-gateway.ts';

/**
 * The key under which a gateway exposes its core handler to runtime adapters. `Symbol.for` keeps
 * it identical across the ESM and CJS builds and across bundled copies.
 */
export const HANDLE_CALL: unique symbol = Symbol.for('@svc/gateway-kit/handle-call') as never;

/** The core handler behind `gateway.fetch`, for adapters that skip Web Request/Response objects. */
export type HandleCall = (call: GatewayCall) => Promise<GatewayReply>;

/**
 * Returns the gateway's core handler. Throws if `gateway` was not made by `createGateway`.
 */
export function handlerOf(gateway: Gateway): HandleCall {
  const handle = (gateway as unknown as Record<symbol, HandleCall | undefined>)[HANDLE_CALL];
  if (typeof handle !== 'function')
    throw new TypeError('Expected a gateway made by createGateway().');
  return handle;
}
