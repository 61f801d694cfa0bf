import { invokeBody } from '@svc/gateway-kit/testing';
import { expect, it } from 'vitest';
import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';
import { http } from '../src/http.ts';

// examples/express: app.use('/gateway', toNodeHandler(gateway)) in an Express 5 app, mounted before
// the app's express.json(), so the gateway reads every body it answers itself.
const TOKEN = 'e2e-express-gateway-token';

contractWalk({
  title: `examples/express (Express 5 app, gateway under /gateway) on Node ${process.versions.node}`,
  token: TOKEN,
  mountPath: '/gateway',
  loopbackGuard: true,
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

    it('answers every gateway body itself: the app parser never sees it', async () => {
      const { url } = server();
      const json = { 'content-type': 'application/json' };
      const token = { authorization: `Bearer ${TOKEN}` };
      const invoke = (headers: Record<string, string>, body: string) =>
        http(`${url}/v1/invoke`, { method: 'POST', headers, body });
      // Without a token: 401 first, whatever the body (express.json() answered 400 / 413 first).
      for (const body of ['{"invocationId":', JSON.stringify({ padding: 'x'.repeat(1_100_000) })]) {
        const anonymous = await invoke(json, body);
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      }
      // The gateway's own limit and envelope (express.json() answered its own 413).
      const tooLarge = await invoke(
        { ...token, ...json },
        JSON.stringify({ padding: 'x'.repeat(300_000) }),
      );
      expect(tooLarge).toMatchObject({
        status: 413,
        body: {
          error: { code: 'payload_too_large', details: { field: 'body', maxBytes: 262_144 } },
        },
      });
      // What body-parser refuses with an HTML page: a charset it does not know, an encoding label.
      const body = JSON.stringify(invokeBody('lookup-account', { accountId: 'acc_1001' }));
      for (const headers of [
        { 'content-type': 'application/json; charset=latin1' },
        { ...json, 'content-encoding': 'gzip' },
      ]) {
        const answer = await invoke({ ...token, ...headers }, body);
        expect(answer.headers.get('content-type')).toBe('application/json');
        expect(answer).toMatchObject({ status: 200, body: { status: 'completed' } });
      }
      // JSON that is not an object is the contract's 422, not a parser's 400.
      const notAnObject = await invoke({ ...token, ...json }, 'null');
      expect(notAnObject).toMatchObject({
        status: 422,
        body: { error: { code: 'invalid_request' } },
      });
    });
  },
});
