import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';

// examples/bun on Bun, as its `start` script runs it.
const TOKEN = 'e2e-bun-gateway-token';

contractWalk({
  title: 'examples/bun on Bun',
  token: TOKEN,
  loopbackGuard: true,
  start: () =>
    startExample({
      example: 'bun',
      command: process.env.BUN_BIN ?? 'bun',
      args: ['run', 'src/server.ts'],
      env: { GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
});
