export type { FastifyGatewayOptions } from './fastify-gateway.ts';
export { fastifyGateway } from './fastify-gateway.ts';
export { fastifyLogger } from './fastify-logger.ts';
