export type {
  CallbackOutbox,
  ClaimedOutboxEntry,
  OutboxEntry,
} from '../runtime/callback-outbox.ts';
export { CallbackConfigError } from './callback-config-error.ts';
export type {
  CallbackDelivery,
  CallbackDeliveryFailure,
  CallbackDispatcherOptions,
} from './callback-dispatcher.ts';
export { CallbackDispatcher } from './callback-dispatcher.ts';
export type {
  ApprovalCallbackBody,
  ApprovalDecisionStatus,
  JobResultCallbackBody,
} from './callback-payloads.ts';
export type {
  CallbackUrlCheck,
  CallbackUrlPolicy,
  CallbackUrlRefusal,
  ResolveHost,
} from './callback-url-guard.ts';
export {
  callbackUrlRefusalMessage,
  checkCallbackUrl,
  checkCallbackUrlResolved,
} from './callback-url-guard.ts';
export type {
  CallbackAttemptEvent,
  CallbackDeliveryResult,
  CallbackDeliverySettings,
  CallbackFailureReason,
  CallbackTransportError,
  DeliverCallbackOptions,
} from './deliver-callback.ts';
export { CALLBACK_DELIVERY_DEFAULTS, deliverCallback } from './deliver-callback.ts';
export type { CallbackLimits } from './delivery-limiter.ts';
export { CALLBACK_LIMIT_DEFAULTS } from './delivery-limiter.ts';
export type { AddressRefusal } from './ip-ranges.ts';
