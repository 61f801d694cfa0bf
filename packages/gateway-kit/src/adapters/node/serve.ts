import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../../gateway/create-gateway.ts';
import { type NodeHandlerOptions, toNodeHandler } from './to-node-handler.ts';

/** Options of {@link serve}. */
export interface ServeOptions extends NodeHandlerOptions {
  /** Port to listen on; `0` picks a free one. Defaults to 8787. */
  readonly port?: number;
  /** Interface to bind. Defaults to `127.0.0.1` (loopback) — pass `0.0.0.0` to expose it. */
  readonly hostname?: string;
}

/** A running gateway server. */
export interface RunningServer {
  readonly server: Server;
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /** Stops accepting connections and closes idle ones; resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * Serves a gateway on `node:http`. Resolves once the server listens.
 *
 * @example
 * const { url } = await serve(gateway, { port: 8787 });
 * console.log(`gateway on ${url}`);
 */
export function serve(gateway: Gateway, options: ServeOptions = {}): Promise<RunningServer> {
  const server = createServer({ keepAliveTimeout: 65_000 }, toNodeHandler(gateway, options));
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, hostname, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = hostname.includes(':') ? `[${hostname}]` : hostname;
      resolve({
        server,
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
}
