// Runtime suite for Deno: `deno test` (see package.json "test:deno"). Needs `pnpm build` first.
// @ts-nocheck -- checked by Deno at run time, not by the package's tsc project.
import { createContext, scenarios } from './scenarios.mjs';

Deno.test('workspace client on Deno', async (t) => {
  const { emulator } = createContext();
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, (request) =>
    emulator.handle(request),
  );
  // A port that was just released refuses connections: the connection-error scenario uses it.
  const probe = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, () => new Response());
  const closedUrl = `http://127.0.0.1:${probe.addr.port}`;
  await probe.shutdown();
  try {
    const baseUrl = `http://127.0.0.1:${server.addr.port}`;
    for (const [name, run] of Object.entries(scenarios({ baseUrl, closedUrl, emulator }))) {
      await t.step(name, run);
    }
  } finally {
    await server.shutdown();
  }
});
