import assert from 'node:assert/strict';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { serve } from '@svc/gateway-kit/node';
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
console.log('ESM consumer: ok');
