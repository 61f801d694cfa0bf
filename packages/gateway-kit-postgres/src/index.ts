// The store error kind is the core's (one class and one check for every adapter).
export { isStoreUnavailableError, StoreUnavailableError } from '@svc/gateway-kit/store';
export type { MigrateOptions, Migration } from './migrate.ts';
export { migrate, migrations } from './migrate.ts';
export type { PostgresCallbackOutboxSettings } from './postgres-callback-outbox.ts';
// A value export: the declarations (dist/index.d.ts) declare the class, so `instanceof` and
// imports of it must find it at run time too.
export { PostgresCallbackOutbox } from './postgres-callback-outbox.ts';
export type { PostgresConnectionOptions, PostgresPool } from './postgres-connection.ts';
export { PostgresConnectionRestored } from './postgres-connection.ts';
export type { PostgresJobStoreOptions } from './postgres-job-store.ts';
export { PostgresJobStore } from './postgres-job-store.ts';
export type { PostgresRecordStoreOptions } from './postgres-record-store.ts';
export { PostgresRecordStore } from './postgres-record-store.ts';
