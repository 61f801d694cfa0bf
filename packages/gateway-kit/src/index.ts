export type { RejectionInit } from './actions/action-rejection.ts';
export { ActionRejection, isActionRejection, reject } from './actions/action-rejection.ts';
export type {
  Action,
  ActionContext,
  ActionDefinition,
  ActionInputSchema,
  ActionResult,
  InferActionInput,
  Invocation,
  JobHandle,
  StandardInputSchema,
} from './actions/define-action.ts';
export { defineAction } from './actions/define-action.ts';
export type {
  StandardJSONSchemaV1,
  StandardSchemaV1,
  StandardTypedV1,
} from './actions/standard-schema.ts';
export type {
  Approval,
  ApprovalDecision,
  ApprovalJob,
  ApprovalListOptions,
  ApprovalPage,
  ApprovalStatus,
} from './approvals/approval.ts';
export type { ApprovalDecisionErrorCode } from './approvals/approval-decision-error.ts';
export { ApprovalDecisionError } from './approvals/approval-decision-error.ts';
export type { ApprovalsHandler, ApprovalsHandlerOptions } from './approvals/approvals-handler.ts';
export { createApprovalsHandler } from './approvals/approvals-handler.ts';
export type { AuthConfig, StaticToken } from './auth/auth-config.ts';
export type { Principal } from './auth/principal.ts';
export * from './callbacks/index.ts';
export * from './contract/index.ts';
export type { CatalogueEntry, GatewayErrorCode } from './errors/error-catalogue.ts';
export { GATEWAY_ERRORS } from './errors/error-catalogue.ts';
export type { Gateway, GatewayApprovals, GatewayOptions } from './gateway/create-gateway.ts';
export { createGateway } from './gateway/create-gateway.ts';
export { GatewayConfigError } from './gateway/gateway-config-error.ts';
export type { ApprovalPolicy } from './gateway/gateway-runtime.ts';
export type { GatewayLogger } from './gateway/logger.ts';
export { consoleLogger } from './gateway/logger.ts';
export type { JobStore, JobUpdate, JobWriteResult, NewJob, StoredJob } from './jobs/job-store.ts';
export { canTransition, isTerminal, JOB_UPDATE_FIELDS, NEW_JOB_FIELDS } from './jobs/job-store.ts';
export { isJobStoreFullError, JobStoreFullError } from './jobs/job-store-full-error.ts';
export type { MemoryJobStoreOptions } from './jobs/memory-job-store.ts';
export { MemoryJobStore } from './jobs/memory-job-store.ts';
export type {
  ApprovalDecidedEvent,
  ApprovalRequestedEvent,
  CallbackEvent,
  GatewayHookName,
  GatewayHooks,
  InvokeAnsweredEvent,
  InvokeIds,
  InvokeReceivedEvent,
  JobStateChangedEvent,
} from './observe/hooks.ts';
export type { GatewaySpan, GatewaySpanOptions, GatewayTracer } from './observe/tracing.ts';
export type { GatewayLimits } from './quotas/limits.ts';
export { DEFAULT_LIMITS } from './quotas/limits.ts';
export type { QuotaName, Quotas } from './quotas/quotas.ts';
export { DEFAULT_QUOTAS } from './quotas/quotas.ts';
export type { MemoryRecordStoreOptions } from './records/memory-record-store.ts';
export { MemoryRecordStore } from './records/memory-record-store.ts';
export type { RecordStore, SetEntry, VersionedRecord } from './records/record-store.ts';
export { isRecordStoreFullError, RecordStoreFullError } from './records/record-store-full-error.ts';
