import { GatewayKitError } from './gateway-kit-error.ts';

/**
 * Thrown by `createGateway` when its configuration cannot produce a contract-exact gateway
 * (duplicate action ids, an input schema that is not a JSON object schema, missing auth...).
 *
 * @example
 * try { createGateway(config); } catch (error) { if (error instanceof GatewayConfigError) console.error(error.message); }
 */
export class GatewayConfigError extends GatewayKitError {
  override readonly name: string = 'GatewayConfigError';
}
