export type {
  CallbackOutboxConformanceOptions,
  CallbackOutboxTestSettings,
} from './callback-outbox-conformance.ts';
export { callbackOutboxConformance } from './callback-outbox-conformance.ts';
export type { ConformanceTestApi, FastCheckModule } from './conformance-kit.ts';
export type { InvokeBodyOverrides } from './invoke-body.ts';
export { invokeBody } from './invoke-body.ts';
export type {
  JobStoreConformanceOptions,
  JobStoreFactory,
} from './job-store-conformance.ts';
export { jobStoreConformance } from './job-store-conformance.ts';
export type {
  RecordStoreConformanceOptions,
  RecordStoreFactory,
} from './record-store-conformance.ts';
export { recordStoreConformance } from './record-store-conformance.ts';
export type { TestClient, TestClientOptions, TestResponse } from './test-client.ts';
export { createTestClient } from './test-client.ts';
