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
// What JavaScript users hit: an unknown option name, no gateway at all.
assert.throws(() => createMcpHandler(gateway, { bogus: 1 }), /unknown option "bogus" \(known: /);
assert.throws(() => createMcpHandler(), McpConfigError);
assert.throws(() => createMcpHandler({}), /expected a gateway made by createGateway\(\)/);
assert.equal(typeof serveStdio, 'function');
const mcp = createMcpHandler(gateway);
mcp
  .fetch(new Request('http://cjs.test/mcp', { method: 'POST', body: '{}' }))
  .then((response) => assert.equal(response.status, 401))
  .then(() => Promise.all([mcp.close(), gateway.close()]))
  .then(() => console.log('CJS consumer: ok'));
