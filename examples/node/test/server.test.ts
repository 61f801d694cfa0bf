import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ErrorEnvelopeSchema, InvokeResponseSchema, ManifestSchema } from '@svc/gateway-kit';
import { invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOKEN = 'example-test-token';
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  child = spawn(process.execPath, [fileURLToPath(new URL('../src/server.ts', import.meta.url))], {
    env: { ...process.env, PORT: '0', GATEWAY_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of child.stdout!) {
    output += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match) {
      url = match[1]!;
      break;
    }
  }
});

afterAll(async () => {
  child.kill('SIGTERM');
  await once(child, 'exit');
});

const auth = { authorization: `Bearer ${TOKEN}` };

describe('examples/node demo gateway (real process, real HTTP)', () => {
  it('serves a valid manifest listing the demo actions', async () => {
    const response = await fetch(`${url}/v1/manifest`, { headers: auth });
    const manifest = await response.json();
    expect(v.is(ManifestSchema, manifest)).toBe(true);
    expect((manifest as v.InferOutput<typeof ManifestSchema>).actions.map((a) => a.id)).toContain(
      'lookup-account',
    );
  });

  it('answers lookup-account with completed, and an unknown account with rejected', async () => {
    const invoke = (accountId: string) =>
      fetch(`${url}/v1/invoke`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(invokeBody('lookup-account', { accountId })),
      }).then((r) => r.json());
    const found = await invoke('acc_1001');
    expect(v.is(InvokeResponseSchema, found)).toBe(true);
    expect(found).toMatchObject({ status: 'completed', data: { accountId: 'acc_1001' } });
    expect(await invoke('acc_9999')).toMatchObject({
      status: 'rejected',
      error: { code: 'account_not_found' },
    });
  });

  it('refuses the development token when GATEWAY_TOKEN is set', async () => {
    const response = await fetch(`${url}/v1/manifest`, {
      headers: { authorization: 'Bearer dev-gateway-token' },
    });
    expect(response.status).toBe(401);
    expect(v.is(ErrorEnvelopeSchema, await response.json())).toBe(true);
  });
});
