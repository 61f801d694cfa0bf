import { invokeBody } from '@svc/gateway-kit/testing';
import { expect, it } from 'vitest';
import { contractWalk } from '../src/contract-walk.ts';
import { startExample } from '../src/example-process.ts';
import { http } from '../src/http.ts';

// examples/zod: the demo catalogue with zod 4 input schemas, on node:http.
const TOKEN = 'e2e-zod-gateway-token';

contractWalk({
  title: `examples/zod (inputs written with zod) on Node ${process.versions.node}`,
  token: TOKEN,
  loopbackGuard: true,
  start: () =>
    startExample({
      example: 'zod',
      command: process.execPath,
      args: ['src/server.ts'],
      env: { GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
    }),
  more: (server) => {
    it("publishes zod's own JSON Schema and reports zod's issues without quoting the input", async () => {
      const { url } = server();
      const auth = { authorization: `Bearer ${TOKEN}` };
      const manifest = await http(`${url}/v1/manifest`, { headers: auth });
      const actions = (manifest.body as { actions: { id: string; inputSchema: unknown }[] })
        .actions;
      expect(actions.find((action) => action.id === 'issue-refund')?.inputSchema).toMatchObject({
        $schema: 'http://json-schema.org/draft-07/schema#',
        properties: { amountCents: { type: 'integer', minimum: 1 } },
        additionalProperties: false,
      });
      const secret = 'not-an-amount-7c1e';
      const answer = await http(`${url}/v1/invoke`, {
        headers: auth,
        body: invokeBody('issue-refund', { orderId: 'ord_2001', amountCents: secret, [secret]: 1 }),
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({
        error: {
          code: 'invalid_input',
          details: {
            issues: expect.arrayContaining([
              expect.objectContaining({ path: 'action.input.amountCents' }),
              { path: `action.input.${secret}`, message: 'Unknown property' },
            ]),
          },
        },
      });
      const messages = (
        answer.body as { error: { details: { issues: { message: string }[] } } }
      ).error.details.issues.map((issue) => issue.message);
      expect(messages.join('\n')).not.toContain(secret);
    });
  },
});
