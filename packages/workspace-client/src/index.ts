export type { AgentsResource } from './client/agents.ts';
export {
  createDebriefsClient,
  createWorkspaceClient,
  type WorkspaceClient,
} from './client/create-workspace-client.ts';
export type { DebriefsResource } from './client/debriefs.ts';
export type {
  ApiKey,
  RequestEvent,
  RequestOptions,
  ResponseEvent,
  ResponseInfo,
  RetryEvent,
  RetryPolicy,
  WithResponse,
  WorkspaceClientOptions,
  WorkspacePromise,
} from './client/options.ts';
export type { SkillsResource } from './client/skills.ts';
export { RETRY_STATUS_CODES } from './client/transport.ts';
export {
  type BuilderSectionDraft,
  type DebriefBuilder,
  type DebriefBuilderInit,
  debrief,
} from './debrief/builder.ts';
export {
  type DebriefDraft,
  type DebriefPageDraft,
  type DebriefSectionDraft,
  defineDebrief,
} from './debrief/define-debrief.ts';
export { debriefExternalId } from './debrief/external-id.ts';
export { WorkspaceAbortError } from './errors/abort-error.ts';
export { type ApiErrorInit, WorkspaceApiError } from './errors/api-error.ts';
export { AuthenticationError } from './errors/authentication-error.ts';
export { BadRequestError } from './errors/bad-request-error.ts';
export { WorkspaceConfigError } from './errors/config-error.ts';
export { ConflictError } from './errors/conflict-error.ts';
export { WorkspaceConnectionError } from './errors/connection-error.ts';
export { InternalServerError } from './errors/internal-server-error.ts';
export { NotFoundError } from './errors/not-found-error.ts';
export { PermissionDeniedError } from './errors/permission-denied-error.ts';
export { RateLimitError } from './errors/rate-limit-error.ts';
export { WorkspaceResponseTooLargeError } from './errors/response-too-large-error.ts';
export { WorkspaceTimeoutError } from './errors/timeout-error.ts';
export { UnprocessableEntityError } from './errors/unprocessable-entity-error.ts';
export {
  type ValidationIssue,
  type ValidationSide,
  WorkspaceValidationError,
} from './errors/validation-error.ts';
export { isWorkspaceError, WorkspaceError } from './errors/workspace-error.ts';
export {
  BASE_PERSONA_IDS,
  type BasePersonaId,
  type GatewayAccessMode,
  type SharedAgent,
  type SharedAgentInput,
  SharedAgentInputSchema,
  SharedAgentSchema,
} from './schemas/agent.ts';
export { SLUG_PATTERN } from './schemas/common.ts';
export {
  type CanvasDeliveryMode,
  DEBRIEF_CONTRACT_VERSION,
  type Debrief,
  type DebriefAudience,
  type DebriefContract,
  DebriefContractSchema,
  type DebriefDelivery,
  type DebriefInput,
  DebriefInputSchema,
  type DebriefPage,
  DebriefSchema,
  type DebriefSection,
  type DebriefStatus,
  type SectionDelivery,
} from './schemas/debrief.ts';
export {
  type SharedSkill,
  type SharedSkillInput,
  SharedSkillInputSchema,
  SharedSkillSchema,
  type SharedStatus,
  type SkillTarget,
} from './schemas/skill.ts';
export { slugify } from './schemas/slugify.ts';
