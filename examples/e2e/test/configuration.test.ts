import { DEV_GATEWAY_TOKEN } from '@svc/example-demo-actions';
import { ErrorEnvelopeSchema } from '@svc/gateway-kit/contract';
import { invokeBody } from '@svc/gateway-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningExample, startExample } from '../src/example-process.ts';
import { http, valid } from '../src/http.ts';

// The environment variables every example shares (createDemoGateway), checked once on examples/node.
const node = (env: Record<string, string>) =>
  startExample({ example: 'node', command: process.execPath, args: ['src/server.ts'], env });

describe('examples/node with no configuration', () => {
  let example: RunningExample;
  beforeAll(async () => {
    // Empty values count as unset: the local defaults apply.
    example = await node({ GATEWAY_TOKEN: '', OPERATOR_TOKEN: '', ALLOW_LOOPBACK_CALLBACKS: '' });
  });
  afterAll(() => example?.stop());

  it('accepts the local development token and says so on startup', async () => {
    expect(example.output()).toContain(`Authorization: Bearer ${DEV_GATEWAY_TOKEN}`);
    const answer = await http(`${example.url}/v1/manifest`, {
      headers: { authorization: `Bearer ${DEV_GATEWAY_TOKEN}` },
    });
    expect(answer.status).toBe(200);
  });

  it('refuses loopback callback URLs (422) unless ALLOW_LOOPBACK_CALLBACKS=1', async () => {
    const answer = await http(`${example.url}/v1/invoke`, {
      headers: { authorization: `Bearer ${DEV_GATEWAY_TOKEN}` },
      body: invokeBody(
        'generate-report',
        { topic: 'Loopback', delayMs: 0 },
        { callbacks: { jobResultUrl: 'http://127.0.0.1:9/jobs' } },
      ),
    });
    expect(answer.status).toBe(422);
    expect(valid(ErrorEnvelopeSchema, answer.body, 'envelope').error).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ path: 'callbacks.jobResultUrl' }] },
    });
  });
});

describe('examples/node with a bad configuration', () => {
  it('stops at once with a message naming the variable', async () => {
    await expect(node({ PORT: 'eighty' })).rejects.toThrow(
      /exited \(code 1[\s\S]*PORT must be a port number between 0 and 65535/,
    );
    await expect(node({ ALLOW_LOOPBACK_CALLBACKS: 'yes' })).rejects.toThrow(
      /ALLOW_LOOPBACK_CALLBACKS must be 1/,
    );
  });
});
