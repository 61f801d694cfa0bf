import assert from 'node:assert/strict';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { CallbackDispatcher } from '@svc/gateway-kit/callbacks';
import { InvokeRequestSchema } from '@svc/gateway-kit/contract';
import { fastifyGateway } from '@svc/gateway-kit/fastify';
import { serve } from '@svc/gateway-kit/node';
import { isStoreUnavailableError, StoreUnavailableError } from '@svc/gateway-kit/store';
import { createTestClient, invokeBody } from '@svc/gateway-kit/testing';
import Fastify from 'fastify';
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
const app = Fastify();
await app.register(fastifyGateway, { gateway, prefix: '/gateway' });
const mounted = await app.inject({
  method: 'POST',
  url: '/gateway/v1/invoke',
  headers: { authorization: 'Bearer t' },
  payload: invokeBody('ping'),
});
assert.deepEqual(mounted.json(), { status: 'completed', outputText: 'pong' });
await app.close();
console.log('ESM consumer: ok');
