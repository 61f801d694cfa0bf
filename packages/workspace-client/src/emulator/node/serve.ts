import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkspaceEmulator, type WorkspaceEmulator } from '../emulator.js';

/** Options of `serveWorkspaceEmulator`. */
export interface ServeEmulatorOptions {
  /** Port to listen on; `0` (default) picks a free one. */
  port?: number | undefined;
  /** Interface to bind. Default `'127.0.0.1'` (local only). */
  host?: string | undefined;
  /** Emulator to serve; a fresh one by default. */
  emulator?: WorkspaceEmulator | undefined;
}

/** A running emulator server. */
export interface RunningEmulator {
  /** Base URL to pass as `baseUrl`, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  readonly port: number;
  readonly emulator: WorkspaceEmulator;
  /** Stops the server. */
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req) chunks.push(chunk as Uint8Array);
    body = new Uint8Array(Buffer.concat(chunks));
  }
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

/**
 * Serves a workspace emulator over HTTP on Node (the `svc-workspace-emulator` bin uses this).
 *
 * @example
 * ```ts
 * import { serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';
 *
 * const server = await serveWorkspaceEmulator({ port: 4010 });
 * const client = createWorkspaceClient({ baseUrl: server.url, apiKey: 'wk_test_example' });
 * // ...
 * await server.close();
 * ```
 */
export async function serveWorkspaceEmulator(
  options: ServeEmulatorOptions = {},
): Promise<RunningEmulator> {
  const emulator = options.emulator ?? createWorkspaceEmulator();
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const server = createServer((req, res) => {
    toRequest(req, origin)
      .then((request) => emulator.handle(request))
      .then((response) => send(res, response))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"code":"internal","message":"Emulator failure"}}');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  origin = `http://${shown}:${port}`;
  return {
    url: origin,
    port,
    emulator,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
