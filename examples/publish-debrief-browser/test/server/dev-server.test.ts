import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_TOKEN, type DevServer, startDevServer } from '../../scripts/dev-server.ts';

let dist: string;
let server: DevServer;
beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'publish-debrief-browser-dist-'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><script src="./app.js"></script>');
  await writeFile(join(dist, 'app.js'), 'console.log(1);');
  server = await startDevServer({ port: 0, distDir: dist });
});
afterAll(async () => {
  await server?.close();
  await rm(dist, { recursive: true, force: true });
});

describe('the example page backend (scripts/dev-server.ts)', () => {
  it('serves the built page and its script with the right content types', async () => {
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('./app.js');
    const script = await fetch(new URL('app.js', server.url));
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toBe('console.log(1);');
  });

  it('tells the page where the workspace is: an emulator on another origin', async () => {
    const config = await (await fetch(new URL('config.json', server.url))).json();
    expect(config).toEqual({
      workspaceUrl: server.workspace.url,
      tokenUrl: '/api/workspace-token',
    });
    expect(new URL(config.workspaceUrl).origin).not.toBe(new URL(server.url).origin);
    const health = await fetch(`${config.workspaceUrl}/api/v1/org/debriefs`, {
      headers: { authorization: `Bearer ${DEV_TOKEN}` },
    });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual([]);
  });

  it('hands out a short-lived token on POST only, never cached', async () => {
    const response = await fetch(new URL('api/workspace-token', server.url), { method: 'POST' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body.token).toBe(DEV_TOKEN);
    const expiresIn = Date.parse(body.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
    expect((await fetch(new URL('api/workspace-token', server.url))).status).toBe(405);
  });

  it('serves nothing outside dist/', async () => {
    for (const path of [
      '/package.json',
      '/%2e%2e/package.json',
      '/..%2fpackage.json',
      '/nope.js',
    ]) {
      expect((await fetch(new URL(path, server.url))).status, path).toBe(404);
    }
  });

  it('says to build first when dist/ is empty', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'publish-debrief-browser-empty-'));
    const unbuilt = await startDevServer({ port: 0, distDir: empty });
    try {
      const response = await fetch(unbuilt.url);
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('pnpm build');
    } finally {
      await unbuilt.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
