import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../../gateway/create-gateway.ts';
import { type NodeHandlerOptions, toNodeHandler } from './to-node-handler.ts';

/**
 * Options of {@link serve}. The limits bound what one caller can make the server keep: Node's own
 * defaults (5 min per request, no connection limit) are made for general-purpose servers.
 *
 * @example
 * // Behind a proxy that pools connections, allow more of them.
 * await serve(gateway, { port: 8787, maxConnections: 2048 });
 */
export interface ServeOptions extends NodeHandlerOptions {
  /** Port to listen on; `0` picks a free one. Defaults to 8787. */
  readonly port?: number;
  /** Interface to bind. Defaults to `127.0.0.1` (loopback) — pass `0.0.0.0` to expose it. */
  readonly hostname?: string;
  /**
   * Time allowed to receive a whole request, headers and body (not to answer it): a slower
   * sender gets `408` and the connection is closed. `0` disables it. Defaults to 30 000 ms
   * (Node: 300 000).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Time allowed to receive the request headers; at most `requestTimeoutMs`. Defaults to
   * 10 000 ms (Node: 60 000).
   */
  readonly headersTimeoutMs?: number;
  /**
   * Idle time after which a kept-alive connection is closed. Defaults to 65 000 ms, longer than
   * the 60 s idle timeout of common load balancers, so they never reuse a connection the
   * gateway is closing (Node: 5 000).
   */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Open connections at most; further ones are closed as soon as they are accepted. Defaults to
   * 512 (Node: unlimited).
   */
  readonly maxConnections?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;
const DEFAULT_MAX_CONNECTIONS = 512;

/** A running gateway server. */
export interface RunningServer {
  readonly server: Server;
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /** Stops accepting connections and closes idle ones; resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * Serves a gateway on `node:http`, with the limits of {@link ServeOptions}. Resolves once the
 * server listens; rejects when it cannot (port in use, or a `headersTimeoutMs` above
 * `requestTimeoutMs`).
 *
 * @example
 * const { url } = await serve(gateway, { port: 8787 });
 * console.log(`gateway on ${url}`);
 */
export function serve(gateway: Gateway, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    // Inside the executor: Node's own option checks throw, and become a rejection here.
    const server = createNodeServer(gateway, options);
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

function createNodeServer(gateway: Gateway, options: ServeOptions): Server {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // A lower requestTimeoutMs alone lowers the headers timeout with it (Node requires <=).
  const headersTimeout =
    options.headersTimeoutMs ??
    (requestTimeout === 0
      ? DEFAULT_HEADERS_TIMEOUT_MS
      : Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout));
  const server = createServer(
    {
      requestTimeout,
      headersTimeout,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      // Node enforces the two timeouts above on this tick (default 30 s, which would add up to
      // 30 s to each of them).
      connectionsCheckingInterval: 1_000,
    },
    toNodeHandler(gateway, options),
  );
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  return server;
}
