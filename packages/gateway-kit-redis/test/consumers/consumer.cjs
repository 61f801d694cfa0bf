const assert = require('node:assert/strict');
const {
  RedisJobStore,
  RedisRecordStore,
  StoreUnavailableError,
} = require('@svc/gateway-kit-redis');

const url = 'redis://127.0.0.1:9';
const jobStore = new RedisJobStore({ url, connectTimeoutMs: 100, onError: () => {} });
const recordStore = new RedisRecordStore({ url, connectTimeoutMs: 100, onError: () => {} });
jobStore
  .get('job_1')
  .then(
    () => assert.fail('expected a StoreUnavailableError'),
    (error) => assert.ok(error instanceof StoreUnavailableError, String(error)),
  )
  .then(() => Promise.all([jobStore.close(), recordStore.close()]))
  .then(() => console.log('CJS consumer: ok'));
