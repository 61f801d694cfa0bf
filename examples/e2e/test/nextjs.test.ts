import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Manifest } from '@svc/gateway-kit/contract';
import { beforeAll, expect, it } from 'vitest';
import { contractWalk } from '../src/contract-walk.ts';
import { exampleDir, startExample } from '../src/example-process.ts';
import { http, rawGet } from '../src/http.ts';

// examples/nextjs: the gateway in a Next.js App Router app (app/gateway/[[...path]]/route.ts),
// built with `next build` and served by `next start`, as in production.
const TOKEN = 'e2e-nextjs-gateway-token';
const dir = exampleDir('nextjs');
const NEXT = join(dir, 'node_modules/next/dist/bin/next');
const NEXT_ENV = { NEXT_TELEMETRY_DISABLED: '1' };

/** Newest modification time under `path` (a file or a folder). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .map((name) => statSync(join(path, name)).mtimeMs)
    .reduce((a, b) => Math.max(a, b), stat.mtimeMs);
}

function builtAt(): number {
  try {
    return statSync(join(dir, '.next/BUILD_ID')).mtimeMs;
  } catch {
    return 0;
  }
}

// CI's build step (`turbo run build`) has built it; run alone, or after a source change, the test
// builds it first, as `next build && next start` would.
beforeAll(async () => {
  const sources = ['app', 'lib', 'next.config.ts', '../demo-actions/src'].map((p) => join(dir, p));
  if (builtAt() > Math.max(...sources.map(newest))) return;
  await promisify(execFile)(process.execPath, [NEXT, 'build'], {
    cwd: dir,
    env: { ...process.env, ...NEXT_ENV },
    timeout: 240_000,
  });
}, 250_000);

/** A port nothing listens on right now (`next start` needs one: it prints no address for 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

contractWalk({
  title: `examples/nextjs (Next.js App Router, next start, gateway under /gateway) on Node ${process.versions.node}`,
  token: TOKEN,
  mountPath: '/gateway',
  loopbackGuard: true,
  start: async () => {
    const port = await freePort();
    return startExample({
      example: 'nextjs',
      command: process.execPath,
      args: [NEXT, 'start', '--port', String(port), '--hostname', '127.0.0.1'],
      env: { ...NEXT_ENV, GATEWAY_TOKEN: TOKEN, ALLOW_LOOPBACK_CALLBACKS: '1' },
      ready: { line: /Ready in/, url: `http://127.0.0.1:${port}/gateway` },
    });
  },
  more: (server) => {
    it('serves the contract only under /gateway', async () => {
      const { origin } = server();
      const outside = await http(`${origin}/v1/manifest`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(outside.status).toBe(404);
      expect(outside.text).not.toContain('"actions"');
    });

    it('answers /gateway itself with the gateway 404 envelope, not the Next.js HTML page', async () => {
      const root = await http(server().url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(root.status).toBe(404);
      expect(root.headers.get('content-type')).toBe('application/json');
      expect(root.body).toEqual({
        error: { code: 'not_found', message: 'No such route.', retryable: false },
      });
    });

    it('answers URLs with the host the caller addressed, not the one next start was given', async () => {
      const { url } = server();
      const auth = { authorization: `Bearer ${TOKEN}` };
      expect((await http(`${url}/v1/manifest`, { headers: auth })).body).toMatchObject({
        gateway: { url },
      });
      const manifestUrl = async (host: string) =>
        (JSON.parse((await rawGet(`${url}/v1/manifest`, { ...auth, host })).body) as Manifest)
          .gateway.url;
      // fetch() cannot set Host; node:http can.
      expect(await manifestUrl('localhost:8443')).toBe('http://localhost:8443/gateway');
    });
  },
});
