import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';

// examples/deno on Deno: the same flags as its `start` script, the explicit config included (without
// it Deno would adopt the pnpm workspace and rewrite the root package.json).
const TOKEN = 'e2e-deno-gateway-token';

contractWalk({
  title: 'examples/deno on Deno',
  token: TOKEN,
  loopbackGuard: true,
  start: () =>
    startExample({
      example: 'deno',
      command: process.env.DENO_BIN ?? 'deno',
      args: [
        'run',
        '--config',
        'deno.json',
        '--allow-net',
        '--allow-env',
        '--allow-read',
        'src/server.ts',
      ],
      env: { GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1', NO_COLOR: '1' },
    }),
});
