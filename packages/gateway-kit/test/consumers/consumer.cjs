const assert = require('node:assert/strict');
const { createGateway, defineAction } = require('@svc/gateway-kit');
const { CallbackDispatcher } = require('@svc/gateway-kit/callbacks');
const { InvokeRequestSchema } = require('@svc/gateway-kit/contract');
const { isStoreUnavailableError, StoreUnavailableError } = require('@svc/gateway-kit/store');
const { toNodeHandler } = require('@svc/gateway-kit/node');
const { fastifyGateway } = require('@svc/gateway-kit/fastify');
const Fastify = require('fastify');
const { createTestClient, invokeBody } = require('@svc/gateway-kit/testing');
const v = require('valibot');

const ping = defineAction({ id: 'ping', input: v.object({}), run: () => ({ outputText: 'pong' }) });
const gateway = createGateway({
  gateway: { id: 'cjs', name: 'CJS' },
  actions: [ping],
  auth: { tokens: ['t'] },
});
createTestClient(gateway, { token: 't' })
  .invoke(invokeBody('ping'))
  .then(({ body }) => {
    assert.deepEqual(body, { status: 'completed', outputText: 'pong' });
    assert.equal(typeof toNodeHandler(gateway), 'function');
    assert.equal(typeof CallbackDispatcher, 'function');
    assert.equal(typeof InvokeRequestSchema, 'object');
    assert.equal(isStoreUnavailableError(new StoreUnavailableError()), true);
    const app = Fastify();
    return app
      .register(fastifyGateway, { gateway, prefix: '/gateway', closeGateway: false })
      .then(() =>
        app.inject({
          method: 'POST',
          url: '/gateway/v1/invoke',
          headers: { authorization: 'Bearer t' },
          payload: invokeBody('ping'),
        }),
      )
      .then((mounted) => {
        assert.deepEqual(mounted.json(), { status: 'completed', outputText: 'pong' });
        return app.close();
      });
  })
  .then(() => console.log('CJS consumer: ok'));
