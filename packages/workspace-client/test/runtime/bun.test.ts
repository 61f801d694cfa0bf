// Runtime suite for Bun: `bun test` (see package.json "test:bun"). Needs `pnpm build` first.
// @ts-nocheck -- checked by Bun at run time, not by the package's tsc project.
import { afterAll, describe, test } from 'bun:test';
import { createContext, scenarios } from './scenarios.mjs';

const { emulator } = createContext();
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: (request) => emulator.handle(request),
});
afterAll(() => server.stop(true));
// A port that was just released refuses connections: the connection-error scenario uses it.
const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
const closedUrl = `http://127.0.0.1:${probe.port}`;
probe.stop(true);

describe('workspace client on Bun', () => {
  for (const [name, run] of Object.entries(
    scenarios({ baseUrl: `http://127.0.0.1:${server.port}`, closedUrl, emulator }),
  )) {
    test(name, run, 10_000);
  }
});
