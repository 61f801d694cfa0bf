export { DateTimeSchema, UriSchema } from './formats.ts';
export type { ErrorEnvelope, GatewayError } from './gateway-error.ts';
export { ErrorEnvelopeSchema, GatewayErrorSchema, JsonObjectSchema } from './gateway-error.ts';
export type {
  AcceptedResponse,
  ApprovalRequiredResponse,
  CompletedResponse,
  InvokeResponse,
  RejectedResponse,
} from './invoke-response.ts';
export { InvokeResponseSchema } from './invoke-response.ts';
export type { Job, JobStatus } from './job.ts';
export { CancelResponseSchema, JobSchema, JobStatusSchema } from './job.ts';
export type { ActionDescriptor, Manifest } from './manifest.ts';
export { ActionDescriptorSchema, ManifestSchema } from './manifest.ts';
export type { RuleId, RuleInfo } from './rules.ts';
export { RULES } from './rules.ts';
