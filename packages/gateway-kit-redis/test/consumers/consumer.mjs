import assert from 'node:assert/strict';
import { createGateway } from '@svc/gateway-kit';
import { isStoreUnavailableError, RedisJobStore, RedisRecordStore } from '@svc/gateway-kit-redis';

// Port 9 (discard) on loopback: nothing listens, so calls fail fast with StoreUnavailableError.
const url = 'redis://127.0.0.1:9';
const jobStore = new RedisJobStore({ url, connectTimeoutMs: 100, onError: () => {} });
const recordStore = new RedisRecordStore({ url, connectTimeoutMs: 100, onError: () => {} });
const gateway = createGateway({
  gateway: { id: 'esm', name: 'ESM' },
  actions: [],
  auth: { tokens: ['t'] },
  jobStore,
  recordStore,
});
const error = await jobStore.get('job_1').catch((caught) => caught);
assert.ok(isStoreUnavailableError(error), String(error));
assert.equal(error.retryable, true);
await assert.rejects(recordStore.get('k'), { name: 'StoreUnavailableError' });
await gateway.close();
await Promise.all([jobStore.close(), recordStore.close()]);
console.log('ESM consumer: ok');
