// CJS consumer: require() resolves the packed package's CommonJS build.
const assert = require('node:assert/strict');
const { checkGateway, formatSummary } = require('@svc/gateway-check');
const { createGatewayClient, GatewayClientError } = require('@svc/gateway-check/client');

assert.equal(typeof checkGateway, 'function');
assert.equal(typeof formatSummary, 'function');
assert.equal(typeof createGatewayClient, 'function');
assert.ok(new GatewayClientError({ kind: 'network', message: 'x' }) instanceof Error);
console.log('cjs consumer ok');
