import assert from 'node:assert/strict';
import { createGateway } from '@svc/gateway-kit';
import {
  isStoreUnavailableError,
  migrations,
  PostgresJobStore,
  PostgresRecordStore,
} from '@svc/gateway-kit-postgres';

// Port 9 (discard) on loopback: nothing listens, so calls fail fast with StoreUnavailableError.
const connectionString = 'postgres://app:secret@127.0.0.1:9/app';
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
assert.ok(!String(error.message).includes('secret'));
await assert.rejects(recordStore.get('k'), { name: 'StoreUnavailableError' });
// The SQL files ship with the package.
assert.match(migrations('acme_gw')[0].sql, /CREATE TABLE "acme_gw"\.jobs/);
await gateway.close();
await Promise.all([jobStore.close(), recordStore.close()]);
console.log('ESM consumer: ok');
