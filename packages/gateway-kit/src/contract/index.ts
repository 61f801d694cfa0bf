export type { ApprovalDecisionErrorCode } from './approval.ts';
export type { CatalogueEntry, GatewayErrorCode } from './error-catalogue.ts';
export { GATEWAY_ERRORS } from './error-catalogue.ts';
export type { ErrorEnvelope, GatewayError } from './gateway-error.ts';
export { ErrorEnvelopeSchema, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';
export type { InvokeRequest, SessionMode } from './invoke-request.ts';
export { InvokeRequestSchema } from './invoke-request.ts';
export type {
  AcceptedResponse,
  ApprovalRequiredResponse,
  CompletedResponse,
  InvokeResponse,
  RejectedResponse,
} from './invoke-response.ts';
export {
  AcceptedResponseSchema,
  ApprovalRequiredResponseSchema,
  CompletedResponseSchema,
  InvokeResponseSchema,
  RejectedResponseSchema,
} from './invoke-response.ts';
export type { CancelResponse, Job, JobStatus } from './job.ts';
export { CancelResponseSchema, JobSchema, JobStatusSchema } from './job.ts';
export type { ActionDescriptor, ExecutionMode, Manifest, SideEffectLevel } from './manifest.ts';
export { ActionDescriptorSchema, ManifestSchema } from './manifest.ts';
export type {
  StandardJSONSchemaV1,
  StandardSchemaV1,
  StandardTypedV1,
} from './standard-schema.ts';
