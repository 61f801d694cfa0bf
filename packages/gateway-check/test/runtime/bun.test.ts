// Runtime suite for Bun: `bun test` (see package.json "test:bun"). Needs `pnpm build` first.
// @ts-nocheck -- checked by Bun at run time, not by the package's tsc project.
import { afterAll, describe, test } from 'bun:test';
import { createRuntimeGateway, scenarios } from './scenarios.mjs';

const gateway = createRuntimeGateway();
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: gateway.fetch });
afterAll(async () => {
  server.stop(true);
  await gateway.close();
});

describe('gateway client on Bun', () => {
  for (const [name, run] of Object.entries(scenarios(`http://127.0.0.1:${server.port}`))) {
    test(name, run, 10_000);
  }
});
