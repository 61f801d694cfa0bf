import { afterAll, expect } from 'vitest';
// The Redis package's own test helper: redis-server on a free loopback port (real clock under faketime).
import { startRedis } from '../../../packages/gateway-kit-redis/test/redis-server.ts';
import { contractWalk } from '../src/contract-walk.ts';
import { type RunningExample, startExample } from '../src/example-process.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../src/round-robin-proxy.ts';

// Two examples/node instances sharing one Redis behind a proxy that alternates request by request:
// the whole contract walk passes as it does against one instance.
const TOKEN = 'e2e-round-robin-gateway-token';
const OPERATOR_TOKEN = 'e2e-round-robin-operator-token';

let proxy: RoundRobinProxy | undefined;

contractWalk({
  title: 'two examples/node instances with REDIS_URL behind a round-robin proxy',
  token: TOKEN,
  operatorToken: OPERATOR_TOKEN,
  start: async (): Promise<RunningExample> => {
    const redis = await startRedis();
    const env = {
      GATEWAY_TOKEN: TOKEN,
      OPERATOR_TOKEN,
      ALLOW_LOOPBACK_CALLBACKS: '1',
      REDIS_URL: redis.url,
    };
    const start = () =>
      startExample({ example: 'node', command: process.execPath, args: ['src/server.ts'], env });
    const [a, b] = await Promise.all([start(), start()]);
    proxy = await startRoundRobinProxy([new URL(a.url).origin, new URL(b.url).origin]);
    const running = proxy;
    return {
      url: running.url,
      output: () => `--- A ---\n${a.output()}\n--- B ---\n${b.output()}`,
      stop: async () => {
        await running.close();
        await Promise.all([a.stop(), b.stop()]);
        await redis.stop();
      },
    };
  },
});

afterAll(() => {
  // Not a walk against one instance in disguise: both answered a fair share.
  const [a = 0, b = 0] = proxy?.counts ?? [];
  expect(Math.min(a, b)).toBeGreaterThan(10);
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
});
