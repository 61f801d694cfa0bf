import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';

// examples/node on the Node that runs the tests (CI: Node 24, then Node 22).
const TOKEN = 'e2e-node-gateway-token';
const OPERATOR_TOKEN = 'e2e-node-operator-token';

contractWalk({
  title: `examples/node on Node ${process.versions.node}`,
  token: TOKEN,
  loopbackGuard: true,
  operatorToken: OPERATOR_TOKEN,
  start: () =>
    startExample({
      example: 'node',
      command: process.execPath,
      args: ['src/server.ts'],
      env: { GATEWAY_TOKEN: TOKEN, OPERATOR_TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
});
