import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway, type Gateway } from '../gateway/create-gateway.ts';
import { invokeBody } from './invoke-body.ts';
import { createTestClient } from './test-client.ts';

const TOKEN = 'test-client-token';
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

function gatewayAt(basePath?: string): Gateway {
  gateway = createGateway({
    gateway: { id: 'g', name: 'G' },
    actions: [
      defineAction({
        id: 'echo',
        input: v.object({ text: v.string() }),
        run: ({ text }) => ({ outputText: text }),
      }),
    ],
    auth: { tokens: [TOKEN] },
    ...(basePath ? { basePath } : {}),
  });
  return gateway;
}

describe('createTestClient', () => {
  it('reaches a gateway served under basePath through a base URL with that path', async () => {
    for (const baseUrl of ['http://gateway.test/tools/gw', 'http://gateway.test/tools/gw/']) {
      const client = createTestClient(gatewayAt('/tools/gw'), { token: TOKEN, baseUrl });
      const manifest = await client.manifest();
      expect(manifest.status).toBe(200);
      expect(manifest.body).toMatchObject({ gateway: { url: 'http://gateway.test/tools/gw' } });
      const invoked = await client.invoke(invokeBody('echo', { text: 'hi' }));
      expect(invoked.body).toEqual({ status: 'completed', outputText: 'hi' });
      expect((await client.job('job_00000000000000000000000000000000')).status).toBe(404);
      await gateway?.close();
    }
  });

  it('addresses http://gateway.test by default, and takes absolute URLs in request()', async () => {
    const client = createTestClient(gatewayAt(), { token: TOKEN });
    expect((await client.manifest()).body).toMatchObject({
      gateway: { url: 'http://gateway.test' },
    });
    expect((await client.request('http://other.test/v1/manifest')).status).toBe(200);
  });
});
