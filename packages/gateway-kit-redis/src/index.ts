export type { RedisCallbackOutbox } from './redis-callback-outbox.ts';
export type { RedisClient, RedisConnectionOptions } from './redis-connection.ts';
export { RedisConnectionRestored } from './redis-connection.ts';
export type { RedisJobStoreOptions } from './redis-job-store.ts';
export { RedisJobStore } from './redis-job-store.ts';
export type { RedisRecordStoreOptions } from './redis-record-store.ts';
export { RedisRecordStore } from './redis-record-store.ts';
export { isStoreUnavailableError, StoreUnavailableError } from './store-unavailable-error.ts';
