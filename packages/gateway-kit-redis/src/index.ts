// The store error kind is the core's (one class and one check for every adapter).
export { isStoreUnavailableError, StoreUnavailableError } from '@svc/gateway-kit/store';
// A value export (not `export type`): the declarations export the class, so `instanceof
// RedisCallbackOutbox` and a named import must work at run time too (test/exports.test.ts).
export type { RedisCallbackShareOptions } from './redis-callback-outbox.ts';
export { RedisCallbackOutbox } from './redis-callback-outbox.ts';
export type {
  RedisClient,
  RedisClusterClient,
  RedisConnectionOptions,
} from './redis-connection.ts';
export { RedisConnectionRestored } from './redis-connection.ts';
export type { RedisJobStoreOptions } from './redis-job-store.ts';
export { RedisJobStore } from './redis-job-store.ts';
export type { RedisRecordStoreOptions } from './redis-record-store.ts';
export { RedisRecordStore } from './redis-record-store.ts';
