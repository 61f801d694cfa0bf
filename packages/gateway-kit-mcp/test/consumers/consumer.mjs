import assert from 'node:assert/strict';
import { createGateway } from '@svc/gateway-kit';
import { actionTools, createMcpHandler, McpConfigError } from '@svc/gateway-kit-mcp';
import { serveStdio } from '@svc/gateway-kit-mcp/stdio';

const gateway = createGateway({
  gateway: { id: 'esm', name: 'ESM' },
  actions: [],
  auth: { tokens: ['t'] },
});
assert.deepEqual(actionTools(gateway.manifest), []);
assert.throws(() => createMcpHandler(gateway, { waitMs: -1 }), McpConfigError);
// What JavaScript users hit: an unknown option name, no gateway at all.
assert.throws(() => createMcpHandler(gateway, { bogus: 1 }), /unknown option "bogus" \(known: /);
assert.throws(() => createMcpHandler(), McpConfigError);
assert.throws(() => createMcpHandler({}), /expected a gateway made by createGateway\(\)/);
assert.equal(typeof serveStdio, 'function');

const mcp = createMcpHandler(gateway);
const post = (body, headers = {}) =>
  mcp.fetch(
    new Request('http://esm.test/mcp', {
      method: 'POST',
      headers: {
        authorization: 'Bearer t',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
const opened = await post({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'esm', version: '1' },
  },
});
assert.equal(opened.status, 200);
await opened.body?.cancel();
const session = {
  'mcp-session-id': opened.headers.get('mcp-session-id'),
  'mcp-protocol-version': '2025-06-18',
};
await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
assert.match(await listed.text(), /"result":\{"tools":\[\]\}/);
await mcp.close();
await gateway.close();
console.log('ESM consumer: ok');
