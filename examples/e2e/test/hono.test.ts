import { expect, it } from 'vitest';
import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';
import { http } from '../src/http.ts';

// examples/hono: the gateway under /gateway of a Hono app (on Node, @hono/node-server).
const TOKEN = 'e2e-hono-gateway-token';

contractWalk({
  title: `examples/hono (Hono app, gateway under /gateway) on Node ${process.versions.node}`,
  token: TOKEN,
  mountPath: '/gateway',
  loopbackGuard: true,
  start: () =>
    startExample({
      example: 'hono',
      command: process.execPath,
      args: ['src/server.ts'],
      env: { GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
  more: (server) => {
    it("keeps serving the app's own routes next to the gateway", async () => {
      const { origin } = server();
      expect(await http(`${origin}/health`)).toMatchObject({ status: 200, body: { ok: true } });
      const home = await http(`${origin}/`);
      expect(home.text).toContain('gateway is under /gateway');
      // The contract lives only under the mount path.
      const outside = await http(`${origin}/v1/manifest`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(outside.status).toBe(404);
      expect(outside.text).not.toContain('"actions"');
    });
  },
});
