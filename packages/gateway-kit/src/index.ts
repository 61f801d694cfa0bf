// The action author's and the gateway operator's API. Wire schemas and types: `/contract`;
// store interfaces and helpers: `/store`; the callback engine and URL guard: `/callbacks`;
// hook event and tracing types: `/observe`; test client and store conformance suites: `/testing`;
// the Node adapter: `/node`.
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
export { ApprovalDecisionError } from './approvals/approval-decision-error.ts';
export type { AuthConfig, StaticToken } from './auth/auth-config.ts';
export type { Principal } from './auth/principal.ts';
export type { CallbackDispatcherOptions } from './callbacks/callback-dispatcher.ts';
export type { CallbackUrlPolicy } from './callbacks/callback-url-guard.ts';
export type { ApprovalPolicy } from './context/gateway-runtime.ts';
export type {
  Approval,
  ApprovalDecision,
  ApprovalJob,
  ApprovalListOptions,
  ApprovalPage,
  ApprovalStatus,
} from './contract/approval.ts';
export type { ApprovalsHandler, ApprovalsHandlerOptions } from './gateway/approvals-handler.ts';
export { createApprovalsHandler } from './gateway/approvals-handler.ts';
export type {
  Authentication,
  Gateway,
  GatewayApprovals,
  GatewayOptions,
} from './gateway/create-gateway.ts';
export { createGateway } from './gateway/create-gateway.ts';
export type { GatewayHooks } from './observe/hooks.ts';
export type { GatewayTracer } from './observe/tracing.ts';
export type { MemoryRecordStoreOptions } from './records/memory-record-store.ts';
export { MemoryRecordStore } from './records/memory-record-store.ts';
export { GatewayConfigError } from './runtime/gateway-config-error.ts';
export { GatewayKitError, isGatewayKitError } from './runtime/gateway-kit-error.ts';
export type { GatewayLimits, Quotas } from './runtime/limits.ts';
export { DEFAULT_LIMITS, DEFAULT_QUOTAS } from './runtime/limits.ts';
export type { GatewayLogger } from './runtime/logger.ts';
export { consoleLogger } from './runtime/logger.ts';
export type { MemoryJobStoreOptions } from './store/memory-job-store.ts';
export { MemoryJobStore } from './store/memory-job-store.ts';
