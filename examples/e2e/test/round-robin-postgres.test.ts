import { afterAll, expect } from 'vitest';
// The package's test helper: initdb into a temporary folder, pg_ctl on a free loopback port.
import {
  startPostgres,
  type TestPostgres,
} from '../../../packages/gateway-kit-postgres/test/postgres-server.ts';
import { contractWalk } from '../src/contract-walk.ts';
import { type RunningExample, startExample } from '../src/example-process.ts';
import { gatewayCheckTests } from '../src/gateway-check-walk.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../src/round-robin-proxy.ts';

// Two examples/node instances sharing one PostgreSQL database (DATABASE_URL) behind a proxy that
// alternates request by request: the whole contract walk passes as against one instance, and
// svc-gateway-check passes against each instance on its own.
const TOKEN = 'e2e-round-robin-pg-gateway-token';
const OPERATOR_TOKEN = 'e2e-round-robin-pg-operator-token';

let proxy: RoundRobinProxy | undefined;
let postgres: TestPostgres | undefined;
const instances: RunningExample[] = [];

contractWalk({
  title: 'two examples/node instances with DATABASE_URL behind a round-robin proxy',
  token: TOKEN,
  operatorToken: OPERATOR_TOKEN,
  start: async (): Promise<RunningExample> => {
    postgres = await startPostgres();
    const env = {
      GATEWAY_TOKEN: TOKEN,
      OPERATOR_TOKEN,
      ALLOW_LOOPBACK_CALLBACKS: '1',
      DATABASE_URL: postgres.url,
    };
    const start = () =>
      startExample({ example: 'node', command: process.execPath, args: ['src/server.ts'], env });
    // One after the other: both migrate at start-up (the second finds nothing to do).
    const a = await start();
    const b = await start();
    instances.push(a, b);
    proxy = await startRoundRobinProxy([new URL(a.url).origin, new URL(b.url).origin]);
    const running = proxy;
    return {
      url: running.url,
      output: () => `--- A ---\n${a.output()}\n--- B ---\n${b.output()}`,
      stop: async () => {
        await running.close();
        await Promise.all([a.stop(), b.stop()]);
        await postgres?.stop();
      },
    };
  },
  more: () => {
    // svc-gateway-check against each instance directly, on the shared database.
    gatewayCheckTests(() => instances[0]!, TOKEN);
    gatewayCheckTests(() => instances[1]!, TOKEN);
  },
});

afterAll(() => {
  // Not a walk against one instance in disguise: both answered a fair share.
  const [a = 0, b = 0] = proxy?.counts ?? [];
  expect(Math.min(a, b)).toBeGreaterThan(10);
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
});
