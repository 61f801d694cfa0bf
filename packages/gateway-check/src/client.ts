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
export {
  type AcceptedResponse,
  type ActionDescriptor,
  type ApprovalRequiredResponse,
  CancelResponseSchema,
  type CompletedResponse,
  DateTimeSchema,
  type ErrorEnvelope,
  ErrorEnvelopeSchema,
  type GatewayError,
  GatewayErrorSchema,
  type InvokeResponse,
  InvokeResponseSchema,
  type Job,
  type JobStatus,
  JobStatusSchema,
  JsonObjectSchema,
  LooseActionDescriptorSchema,
  LooseJobSchema,
  LooseManifestSchema,
  type Manifest,
  type RejectedResponse,
  RULES,
  type RuleId,
  type RuleInfo,
  UriSchema,
} from './contract/index.ts';
export { CheckOptionsError } from './errors/check-options-error.ts';
export { GatewayCheckError, isGatewayCheckError } from './errors/gateway-check-error.ts';
export {
  GatewayClientError,
  type GatewayClientErrorInit,
  type GatewayClientErrorKind,
  isGatewayClientError,
} from './errors/gateway-client-error.ts';
export type { FetchLike } from './http/exchange.ts';
