const assert = require('node:assert/strict');
const {
  migrations,
  PostgresJobStore,
  PostgresRecordStore,
  StoreUnavailableError,
} = require('@svc/gateway-kit-postgres');

const connectionString = 'postgres://app@127.0.0.1:9/app';
const jobStore = new PostgresJobStore({
  connectionString,
  connectTimeoutMs: 200,
  onError: () => {},
});
const recordStore = new PostgresRecordStore({
  connectionString,
  connectTimeoutMs: 200,
  onError: () => {},
});
assert.equal(migrations()[0].version, 1);
jobStore
  .get('job_1')
  .then(
    () => assert.fail('expected a StoreUnavailableError'),
    (error) => assert.ok(error instanceof StoreUnavailableError, String(error)),
  )
  .then(() => Promise.all([jobStore.close(), recordStore.close()]))
  .then(() => console.log('CJS consumer: ok'));
