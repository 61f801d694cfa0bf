const assert = require('node:assert/strict');
const { createGateway } = require('@svc/gateway-kit');
const { actionTools, createMcpHandler, McpConfigError } = require('@svc/gateway-kit-mcp');
const { serveStdio } = require('@svc/gateway-kit-mcp/stdio');

const gateway = createGateway({
  gateway: { id: 'cjs', name: 'CJS' },
  actions: [],
  auth: { tokens: ['t'] },
});
assert.deepEqual(actionTools(gateway.manifest), []);
assert.throws(() => createMcpHandler(gateway, { path: 'mcp' }), McpConfigError);
assert.equal(typeof serveStdio, 'function');
const mcp = createMcpHandler(gateway);
mcp
  .fetch(new Request('http://cjs.test/mcp', { method: 'POST', body: '{}' }))
  .then((response) => assert.equal(response.status, 401))
  .then(() => Promise.all([mcp.close(), gateway.close()]))
  .then(() => console.log('CJS consumer: ok'));
