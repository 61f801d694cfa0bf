// A tiny local "backend" for the page: serves dist/, a /config.json telling the page where the
// workspace is, and a token route. The workspace is a local emulator on another port, so the
// page's calls are cross-origin (CORS), as they would be against a real workspace.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningEmulator, serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';

/**
 * The token handed to the page. The emulator accepts any bearer key (each key is its own
 * workspace), so a fixed development token is enough here. Against a real workspace, this route
 * must authenticate the user and return a short-lived token minted for them — never the
 * workspace key itself (how the service issues such tokens is not part of contract v1).
 */
export const DEV_TOKEN = 'wk_local_browser_example';
const TOKEN_LIFETIME_MS = 10 * 60_000;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export interface DevServerOptions {
  /** Port of the page; `0` picks a free one. Default 5180. */
  port?: number;
  /** Port of the workspace emulator; `0` (default) picks a free one. */
  emulatorPort?: number;
  /** Directory to serve. Default: this example's dist/. */
  distDir?: string;
}

export interface DevServer {
  /** Address of the page, e.g. `http://localhost:5180/`. */
  readonly url: string;
  /** The workspace emulator the page publishes to. */
  readonly workspace: RunningEmulator;
  close(): Promise<void>;
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const dist = resolve(options.distDir ?? fileURLToPath(new URL('../dist/', import.meta.url)));
  const workspace = await serveWorkspaceEmulator({ port: options.emulatorPort ?? 0 });

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const json = (status: number, body: unknown) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(body));

    if (url.pathname === '/config.json' && req.method === 'GET') {
      return json(200, { workspaceUrl: workspace.url, tokenUrl: '/api/workspace-token' });
    }
    if (url.pathname === '/api/workspace-token') {
      if (req.method !== 'POST') return json(405, { error: 'use POST' });
      // A real backend checks the user's session here before minting anything.
      const expiresAt = new Date(Date.now() + TOKEN_LIFETIME_MS).toISOString();
      return json(200, { token: DEV_TOKEN, expiresAt });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'GET only' });

    const file = resolve(dist, `.${url.pathname === '/' ? '/index.html' : url.pathname}`);
    if (!file.startsWith(dist + sep)) return json(404, { error: 'not found' });
    readFile(file).then(
      (content) => {
        res.writeHead(200, {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': 'no-cache',
        });
        res.end(req.method === 'HEAD' ? undefined : content);
      },
      () =>
        url.pathname === '/' || url.pathname === '/index.html'
          ? json(503, { error: 'dist/ is missing: run `pnpm build` first' })
          : json(404, { error: 'not found' }),
    );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 5180, '127.0.0.1', () => done());
  }).catch(async (error: unknown) => {
    await workspace.close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  return {
    // `localhost` for the page and `127.0.0.1` for the emulator: two origins, like production.
    url: `http://localhost:${port}/`,
    workspace,
    close: async () => {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      await workspace.close();
    },
  };
}
