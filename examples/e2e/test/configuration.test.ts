import { once } from 'node:events';
import { connect } from 'node:net';
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
    // Empty values count as unset (with a warning): the local defaults apply, on loopback.
    example = await node({ GATEWAY_TOKEN: '', OPERATOR_TOKEN: '', ALLOW_LOOPBACK_CALLBACKS: '' });
  });
  afterAll(() => example?.stop());

  it('warns that an empty GATEWAY_TOKEN or OPERATOR_TOKEN is treated as unset', () => {
    expect(example.output()).toContain('GATEWAY_TOKEN is set but empty: treated as unset.');
    expect(example.output()).toContain('OPERATOR_TOKEN is set but empty: treated as unset.');
  });

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

describe('examples/node on a non-loopback address', () => {
  it.each([
    [{ HOST: '0.0.0.0' }, 'GATEWAY_TOKEN'],
    [{ HOST: '0.0.0.0', GATEWAY_TOKEN: '', OPERATOR_TOKEN: '' }, 'GATEWAY_TOKEN'],
    [{ HOST: '0.0.0.0', GATEWAY_TOKEN: 'e2e-own-gateway-token-5d1e' }, 'OPERATOR_TOKEN'],
  ])('refuses the public development tokens (%j): exits 1 naming %s', async (env, variable) => {
    const failure = await node(env).then(
      (example) => {
        void example.stop();
        return undefined;
      },
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/exited \(code 1,/);
    expect(failure).toContain('HOST=0.0.0.0 is not a loopback address');
    expect(failure).toContain(`set ${variable}`);
    expect(failure).not.toContain('e2e-own-gateway-token-5d1e');
  });
});

describe('examples/node connection bounds', () => {
  let example: RunningExample;
  beforeAll(async () => {
    example = await node({});
  });
  afterAll(() => example?.stop());

  it('answers an authenticated body trickled past 30 s with 408, as docs/security.md says', async () => {
    const { port } = new URL(example.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      [
        'POST /v1/invoke HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        `Authorization: Bearer ${DEV_GATEWAY_TOKEN}`,
        'Content-Type: application/json',
        'Content-Length: 100000',
        '',
        '{',
      ].join('\r\n'),
    );
    const started = Date.now();
    const trickle = setInterval(() => socket.write(' '), 1_000);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    // The server answers 408 and closes; Node 22 may reset the connection after the answer
    // (ECONNRESET while the trickle still writes), so wait for 'close', which follows either.
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(trickle);
    const took = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(took).toBeGreaterThan(29_000);
    expect(took).toBeLessThan(34_000);
  }, 45_000);
});

describe('examples/node with EXTRA_GATEWAY_TOKENS', () => {
  const gatewayToken = 'e2e-gateway-token-0f3a';
  const extra = ['e2e-caller-one-9b2c', 'e2e-caller-two-47d1'];
  let example: RunningExample;
  beforeAll(async () => {
    example = await node({
      GATEWAY_TOKEN: gatewayToken,
      EXTRA_GATEWAY_TOKENS: ` ${extra[0]} , ${extra[1]} `,
    });
  });
  afterAll(() => example?.stop());
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  it('names the extra callers on startup, never their tokens', () => {
    expect(example.output()).toContain(
      'EXTRA_GATEWAY_TOKENS: 2 more callers (caller-1 … caller-2)',
    );
    for (const token of [gatewayToken, ...extra]) expect(example.output()).not.toContain(token);
  });

  it('makes each token its own caller: a job is visible to the caller that started it only', async () => {
    const started = await http(`${example.url}/v1/invoke`, {
      headers: as(extra[0]!),
      body: invokeBody('generate-report', { topic: 'Principals', delayMs: 0 }),
    });
    expect(started.status).toBe(200);
    const { jobId } = (started.body as { job: { jobId: string } }).job;
    const job = (token: string) => http(`${example.url}/v1/jobs/${jobId}`, { headers: as(token) });
    expect((await job(extra[0]!)).status).toBe(200);
    for (const other of [extra[1]!, gatewayToken]) {
      const answer = await job(other);
      expect(answer.status).toBe(404);
      expect(valid(ErrorEnvelopeSchema, answer.body, 'envelope').error.code).toBe('job_not_found');
    }
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
    await expect(node({ EXTRA_GATEWAY_TOKENS: 'caller-token-a,,caller-token-b' })).rejects.toThrow(
      /EXTRA_GATEWAY_TOKENS entry 2 must be a non-empty bearer token/,
    );
  });

  it('refuses a token given twice without printing it', async () => {
    const repeated = node({
      GATEWAY_TOKEN: 'repeated-token-5e1d',
      EXTRA_GATEWAY_TOKENS: 'caller-token-a,repeated-token-5e1d',
    });
    await expect(repeated).rejects.toThrow(/EXTRA_GATEWAY_TOKENS entry 2 repeats GATEWAY_TOKEN/);
    await expect(repeated).rejects.not.toThrow(/repeated-token-5e1d/);
  });
});
