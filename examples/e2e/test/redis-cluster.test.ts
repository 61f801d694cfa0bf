import { afterAll, expect } from 'vitest';
// The Redis package's own test harness: 6 redis-server in cluster mode on free loopback ports.
import {
  startCluster,
  type TestCluster,
} from '../../../packages/gateway-kit-redis/test/redis-cluster.ts';
import { contractWalk } from '../src/contract-walk.ts';
import { type RunningExample, startExample } from '../src/example-process.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../src/round-robin-proxy.ts';

// Two examples/node instances on a local Redis Cluster (3 primaries, 3 replicas) through
// REDIS_CLUSTER_URLS, behind a proxy that alternates request by request: the whole contract walk
// (jobs, cancels over sharded pub/sub, callbacks, approvals, idempotency, svc-gateway-check)
// passes as it does against one instance on one Redis node.
const TOKEN = 'e2e-redis-cluster-gateway-token';
const OPERATOR_TOKEN = 'e2e-redis-cluster-operator-token';

let proxy: RoundRobinProxy | undefined;
let cluster: TestCluster | undefined;

contractWalk({
  title: 'two examples/node instances with REDIS_CLUSTER_URLS behind a round-robin proxy',
  token: TOKEN,
  operatorToken: OPERATOR_TOKEN,
  start: async (): Promise<RunningExample> => {
    cluster = await startCluster();
    const env = {
      GATEWAY_TOKEN: TOKEN,
      OPERATOR_TOKEN,
      ALLOW_LOOPBACK_CALLBACKS: '1',
      REDIS_CLUSTER_URLS: cluster.urls.join(','),
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
        await cluster?.stop();
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
