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
} from './hooks.ts';
export type { GatewaySpan, GatewaySpanOptions, GatewayTracer } from './tracing.ts';
