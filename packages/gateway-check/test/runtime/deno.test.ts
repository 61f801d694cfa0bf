// Runtime suite for Deno: `deno test` (see package.json "test:deno"). Needs `pnpm build` first.
// @ts-nocheck -- checked by Deno at run time, not by the package's tsc project.
import { createRuntimeGateway, scenarios } from './scenarios.mjs';

Deno.test('gateway client on Deno', async (t) => {
  const gateway = createRuntimeGateway();
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, gateway.fetch);
  try {
    for (const [name, run] of Object.entries(scenarios(`http://127.0.0.1:${server.addr.port}`))) {
      await t.step(name, run);
    }
  } finally {
    await server.shutdown();
    await gateway.close();
  }
});
