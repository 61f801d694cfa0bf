import { once } from 'node:events';
import { createServer } from 'node:net';
import { invokeBody } from '@svc/gateway-kit/testing';
import { describe, expect, it } from 'vitest';
import { startExample } from '../src/example-process.ts';
import { http } from '../src/http.ts';

// examples/node with REDIS_URL pointing where no Redis answers.
const TOKEN = 'e2e-redis-startup-token';

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const node = (env: Record<string, string>) =>
  startExample({
    example: 'node',
    command: process.execPath,
    args: ['src/server.ts'],
    env: { GATEWAY_TOKEN: TOKEN, ...env },
  });

describe('examples/node when Redis cannot be reached at start-up', () => {
  it('stops at once with an error naming the URL, never its password', async () => {
    const port = await closedPort();
    const failure = await node({ REDIS_URL: `redis://app:hunter2-secret@127.0.0.1:${port}` }).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(/exited \(code 1/);
    expect(failure).toContain(`Cannot reach Redis at redis://app:***@127.0.0.1:${port} within`);
    expect(failure).not.toContain('hunter2');
    expect(failure).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('with REDIS_START_DEGRADED=true it starts and answers 503 unavailable until Redis is there', async () => {
    const port = await closedPort();
    const example = await node({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_START_DEGRADED: 'true',
    });
    try {
      const answer = await http(`${example.url}/v1/invoke`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: invokeBody('generate-report', { topic: 'degraded', delayMs: 0 }),
      });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'unavailable', retryable: true } });
      expect(example.output()).not.toMatch(/\n\s+at /);
    } finally {
      await example.stop();
    }
  });
});
