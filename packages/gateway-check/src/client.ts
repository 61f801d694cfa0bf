export {
  createGatewayClient,
  type GatewayClient,
  type GatewayClientOptions,
  type InvokeOptions,
  type InvokeOutcome,
} from './client/create-gateway-client.ts';
export { isFinalJobStatus, type JobHandle, type WaitOptions } from './client/job-handle.ts';
export type { ActionInput, TypedActionLike } from './client/typed-action.ts';
export type { Approval } from './contract/approval.ts';
export * from './contract/index.ts';
export {
  GatewayClientError,
  type GatewayClientErrorInit,
  type GatewayClientErrorKind,
  isGatewayClientError,
} from './errors/gateway-client-error.ts';
export type { FetchLike } from './http/exchange.ts';
