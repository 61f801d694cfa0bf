export type { JobStore, JobUpdate, JobWriteResult, NewJob, StoredJob } from '../jobs/job-store.ts';
export { canTransition, isTerminal, JOB_UPDATE_FIELDS, NEW_JOB_FIELDS } from '../jobs/job-store.ts';
export { isJobStoreFullError, JobStoreFullError } from '../jobs/job-store-full-error.ts';
export type { MemoryJobStoreOptions } from '../jobs/memory-job-store.ts';
export { MemoryJobStore } from '../jobs/memory-job-store.ts';
export type { MemoryRecordStoreOptions } from '../records/memory-record-store.ts';
export { MemoryRecordStore } from '../records/memory-record-store.ts';
export type { RecordStore, SetEntry, VersionedRecord } from '../records/record-store.ts';
export {
  isRecordStoreFullError,
  RecordStoreFullError,
} from '../records/record-store-full-error.ts';
export { isStoreUnavailableError } from './store-errors.ts';
export { StoreUnavailableError } from './store-unavailable-error.ts';
