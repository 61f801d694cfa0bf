/**
 * `@svc/gateway-kit/node`: the gateway on Node (`serve` on the kit's own HTTP/1.1 server,
 * `toNodeHandler` for `node:http`, Express and Connect, `answerClientError` for a server of your own) and the callback `fetch` that connects
 * only to addresses the URL policy allows.
 *
 * @module node
 */
export { answerClientError } from './client-errors.ts';
export type { GatewayServer } from './http1/gateway-server.ts';
export type { AllowedHosts } from './loopback-host.ts';
export type { NodeHandlerOptions } from './node-handler-options.ts';
export type { PinnedFetchOptions } from './pinned-fetch.ts';
export { createPinnedFetch } from './pinned-fetch.ts';
export { resolveHostWithNodeDns } from './resolve-host.ts';
export type { RunningServer, ServeOptions } from './serve.ts';
export { serve } from './serve.ts';
export { closeStalledConnections } from './stalled-connections.ts';
export { toNodeHandler } from './to-node-handler.ts';
