/**
 * `@svc/gateway-kit/fastify`: the gateway as a Fastify plugin, and a logger that writes to Fastify's.
 *
 * @module fastify
 */
export type { FastifyGatewayOptions } from './fastify-gateway.ts';
export { fastifyGateway } from './fastify-gateway.ts';
export { fastifyLogger } from './fastify-logger.ts';
