// The contract as the checker reads it: a separate copy of the wire schemas by decision, not
// @svc/gateway-kit/contract's, because a checker does not trust the kit it checks. Where the
// contract lets a gateway add fields (manifest, action descriptor, job) the readers are loose and
// named so (`Loose…Schema`); the kit's writer schemas of the same shapes are strict.
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
export { CancelResponseSchema, JobStatusSchema, LooseJobSchema } from './job.ts';
export type { ActionDescriptor, Manifest } from './manifest.ts';
export { LooseActionDescriptorSchema, LooseManifestSchema } from './manifest.ts';
export type { RuleId, RuleInfo } from './rules.ts';
export { RULES } from './rules.ts';
