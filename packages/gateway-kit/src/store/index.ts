export type { MemoryRecordStoreOptions } from '../records/memory-record-store.ts';
export { MemoryRecordStore } from '../records/memory-record-store.ts';
export type {
  RecordStore,
  SetAddition,
  SetEntry,
  SetMember,
  VersionedRecord,
} from '../records/record-store.ts';
export {
  isRecordStoreFullError,
  RecordStoreFullError,
} from '../records/record-store-full-error.ts';
export { addSetBySet, addToSets, removeFromSets } from '../records/set-batches.ts';
export type {
  CallbackOutbox,
  ClaimedOutboxEntry,
  OutboxEntry,
} from '../runtime/callback-outbox.ts';
// For store adapters: option errors in the kit's one style (`new XStore: maxJobs is the number 0: …`).
export {
  checkOptionNames,
  type Refuse,
  refusalFor,
  timerMs,
} from '../runtime/config-refusal.ts';
export { GatewayConfigError } from '../runtime/gateway-config-error.ts';
export { CancelListeners } from './cancel-listeners.ts';
export { isJobQuotaError, JobQuotaError } from './job-quota-error.ts';
export type {
  JobQuotaClaim,
  JobStore,
  JobUpdate,
  JobWriteResult,
  NewJob,
  StoredJob,
} from './job-store.ts';
export { canTransition, isTerminal, JOB_UPDATE_FIELDS, NEW_JOB_FIELDS } from './job-store.ts';
export { isJobStoreFullError, JobStoreFullError } from './job-store-full-error.ts';
export type { MemoryJobStoreOptions } from './memory-job-store.ts';
export { MemoryJobStore } from './memory-job-store.ts';
export { isStoreUnavailableError } from './store-errors.ts';
export { StoreUnavailableError } from './store-unavailable-error.ts';
