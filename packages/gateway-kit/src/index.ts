export type { RejectionInit } from './actions/action-rejection.ts';
export { ActionRejection, reject } from './actions/action-rejection.ts';
export type {
  Action,
  ActionContext,
  ActionDefinition,
  ActionInputSchema,
  ActionResult,
  Invocation,
} from './actions/define-action.ts';
export { defineAction } from './actions/define-action.ts';
export type { AuthConfig, StaticToken } from './auth/auth-config.ts';
export type { Principal } from './auth/principal.ts';
export * from './contract/index.ts';
export type { CatalogueEntry, GatewayErrorCode } from './errors/error-catalogue.ts';
export { GATEWAY_ERRORS } from './errors/error-catalogue.ts';
export type { Gateway, GatewayOptions } from './gateway/create-gateway.ts';
export { createGateway } from './gateway/create-gateway.ts';
export { GatewayConfigError } from './gateway/gateway-config-error.ts';
export type { GatewayLogger } from './gateway/logger.ts';
export { consoleLogger } from './gateway/logger.ts';
