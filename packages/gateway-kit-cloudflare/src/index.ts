export type { DurableCallbackOutboxOptions } from './durable-callback-outbox.ts';
export { DurableCallbackOutbox } from './durable-callback-outbox.ts';
export type { DurableJobStoreOptions } from './durable-job-store.ts';
export { DurableJobStore } from './durable-job-store.ts';
export type { DurableRecordStoreOptions } from './durable-record-store.ts';
export { DurableRecordStore } from './durable-record-store.ts';
export type { DurableStorage, SqlCursor, SqlStorage, SqlValue } from './durable-storage.ts';
export type {
  DecisionAnswer,
  DurableObjectStateLike,
  GatewayObjectApi,
  GatewayObjectClass,
  GatewayObjectSettings,
  WorkerGatewayOptions,
} from './gateway-object.ts';
export { gatewayObject } from './gateway-object.ts';
export type { GatewayNamespace, GatewayWorker, GatewayWorkerOptions } from './worker.ts';
export { createGatewayWorker } from './worker.ts';
