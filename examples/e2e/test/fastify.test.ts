import { expect, it } from 'vitest';
import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';
import { http } from '../src/http.ts';

// examples/fastify: app.register(fastifyGateway, { gateway, prefix: '/gateway' }) in a Fastify 5
// app with its own JSON routes and Fastify's logger.
const TOKEN = 'e2e-fastify-gateway-token';

contractWalk({
  title: `examples/fastify (Fastify 5 app, gateway plugin under /gateway) on Node ${process.versions.node}`,
  token: TOKEN,
  mountPath: '/gateway',
  loopbackGuard: true,
  start: () =>
    startExample({
      example: 'fastify',
      command: process.execPath,
      args: ['src/server.ts'],
      env: { GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
  more: (server) => {
    it("keeps serving the app's own routes, with Fastify's JSON parser, next to the gateway", async () => {
      const { origin } = server();
      expect(await http(`${origin}/health`)).toMatchObject({ status: 200, body: { ok: true } });
      expect(await http(`${origin}/api/notes`, { body: { text: 'hello' } })).toMatchObject({
        status: 201,
        body: { saved: { text: 'hello' } },
      });
      // Fastify's own refusal on the app's route; the contract's envelope under the gateway.
      const appRoute = await http(`${origin}/api/notes`, {
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      expect(appRoute.status).toBe(400);
      expect(appRoute.body).toMatchObject({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
      const outside = await http(`${origin}/v1/manifest`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(outside.status).toBe(404);
      expect(outside.text).not.toContain('"actions"');
    });

    it('hands bodies to the gateway unparsed: its envelopes and limits, not Fastify’s', async () => {
      const { url } = server();
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const malformed = await http(`${url}/v1/invoke`, { headers, body: '{' });
      expect(malformed).toMatchObject({ status: 400, body: { error: { code: 'malformed_json' } } });
      // Over the gateway's 256 KiB limit, under Fastify's 1 MiB bodyLimit.
      const tooLarge = await http(`${url}/v1/invoke`, {
        headers,
        body: JSON.stringify({ padding: 'x'.repeat(300_000) }),
      });
      expect(tooLarge).toMatchObject({
        status: 413,
        body: { error: { code: 'payload_too_large' } },
      });
    });

    it("logs each request through Fastify's logger, never the token", async () => {
      const { example, url } = server();
      await http(`${url}/v1/manifest`, { headers: { authorization: `Bearer ${TOKEN}` } });
      await expect.poll(() => example.output()).toMatch(/"url":"\/gateway\/v1\/manifest"/);
      expect(example.output()).not.toContain(TOKEN);
    });
  },
});
