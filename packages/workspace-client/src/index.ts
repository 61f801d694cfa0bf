export type { AgentsResource } from './client/agents.js';
export {
  createDebriefsClient,
  createWorkspaceClient,
  type WorkspaceClient,
} from './client/create-workspace-client.js';
export type { DebriefsResource } from './client/debriefs.js';
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
} from './client/options.js';
export type { SkillsResource } from './client/skills.js';
export { RETRY_STATUS_CODES } from './client/transport.js';
export {
  type BuilderSectionDraft,
  type DebriefBuilder,
  type DebriefBuilderInit,
  debrief,
} from './debrief/builder.js';
export {
  type DebriefDraft,
  type DebriefPageDraft,
  type DebriefSectionDraft,
  defineDebrief,
} from './debrief/define-debrief.js';
export { debriefExternalId } from './debrief/external-id.js';
export { WorkspaceAbortError } from './errors/abort-error.js';
export { type ApiErrorInit, WorkspaceApiError } from './errors/api-error.js';
export { AuthenticationError } from './errors/authentication-error.js';
export { BadRequestError } from './errors/bad-request-error.js';
export { WorkspaceConfigError } from './errors/config-error.js';
export { ConflictError } from './errors/conflict-error.js';
export { WorkspaceConnectionError } from './errors/connection-error.js';
export { InternalServerError } from './errors/internal-server-error.js';
export { NotFoundError } from './errors/not-found-error.js';
export { PermissionDeniedError } from './errors/permission-denied-error.js';
export { RateLimitError } from './errors/rate-limit-error.js';
export { WorkspaceResponseTooLargeError } from './errors/response-too-large-error.js';
export { WorkspaceTimeoutError } from './errors/timeout-error.js';
export { UnprocessableEntityError } from './errors/unprocessable-entity-error.js';
export {
  type ValidationIssue,
  type ValidationSide,
  WorkspaceValidationError,
} from './errors/validation-error.js';
export { WorkspaceError } from './errors/workspace-error.js';
export {
  BASE_PERSONA_IDS,
  type BasePersonaId,
  type GatewayAccessMode,
  type SharedAgent,
  type SharedAgentInput,
  SharedAgentInputSchema,
  SharedAgentSchema,
} from './schemas/agent.js';
export { SLUG_PATTERN } from './schemas/common.js';
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
} from './schemas/debrief.js';
export {
  type SharedSkill,
  type SharedSkillInput,
  SharedSkillInputSchema,
  SharedSkillSchema,
  type SharedStatus,
  type SkillTarget,
} from './schemas/skill.js';
export { slugify } from './schemas/slugify.js';
