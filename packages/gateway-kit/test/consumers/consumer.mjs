import assert from 'node:assert/strict';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { CallbackDispatcher } from '@svc/gateway-kit/callbacks';
import { InvokeRequestSchema } from '@svc/gateway-kit/contract';
import { serve } from '@svc/gateway-kit/node';
import { isStoreUnavailableError, StoreUnavailableError } from '@svc/gateway-kit/store';
import { createTestClient, invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';

const ping = defineAction({ id: 'ping', input: v.object({}), run: () => ({ outputText: 'pong' }) });
const gateway = createGateway({
  gateway: { id: 'esm', name: 'ESM' },
  actions: [ping],
  auth: { tokens: ['t'] },
});
const { body } = await createTestClient(gateway, { token: 't' }).invoke(invokeBody('ping'));
assert.deepEqual(body, { status: 'completed', outputText: 'pong' });
assert.equal(typeof serve, 'function');
assert.equal(typeof CallbackDispatcher, 'function');
assert.equal(typeof InvokeRequestSchema, 'object');
assert.equal(isStoreUnavailableError(new StoreUnavailableError()), true);
console.log('ESM consumer: ok');
