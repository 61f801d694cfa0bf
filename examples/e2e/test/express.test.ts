import { expect, it } from 'vitest';
import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';
import { http } from '../src/http.ts';

// examples/express: app.use('/gateway', toNodeHandler(gateway)) in an Express 5 app that parses
// every JSON body with express.json() first, so the walk's invokes reach the gateway pre-parsed.
const TOKEN = 'e2e-express-gateway-token';

contractWalk({
  title: `examples/express (Express 5 app, gateway under /gateway) on Node ${process.versions.node}`,
  token: TOKEN,
  mountPath: '/gateway',
  start: () =>
    startExample({
      example: 'express',
      command: process.execPath,
      args: ['src/server.ts'],
      env: { GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
  more: (server) => {
    it("keeps serving the app's own routes, JSON bodies included, next to the gateway", async () => {
      const { origin } = server();
      expect(await http(`${origin}/health`)).toMatchObject({ status: 200, body: { ok: true } });
      expect(await http(`${origin}/api/notes`, { body: { text: 'hello' } })).toMatchObject({
        status: 201,
        body: { saved: { text: 'hello' } },
      });
      const outside = await http(`${origin}/v1/manifest`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(outside.status).toBe(404);
    });

    it('answers bodies express.json() refuses with contract envelopes, not HTML', async () => {
      const { url } = server();
      const tooLarge = await http(`${url}/v1/invoke`, {
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ padding: 'x'.repeat(1_100_000) }),
      });
      expect(tooLarge).toMatchObject({
        status: 413,
        body: { error: { code: 'payload_too_large' } },
      });
    });
  },
});
