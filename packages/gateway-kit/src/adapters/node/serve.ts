import { type AddressInfo, isIP } from 'node:net';
import * as v from 'valibot';
import type { Gateway } from '../../gateway/create-gateway.ts';
import { refusalFor } from '../../runtime/config-refusal.ts';
import {
  assertOptions,
  fromEnv,
  is,
  isOptionsObject,
  OptionalPositiveInteger,
  onlyKeys,
  optionsObject,
} from '../../runtime/option-schemas.ts';
import { GatewayServer } from './http1/gateway-server.ts';
import type { NodeHandlerOptions } from './node-handler-options.ts';
import { NODE_HANDLER_ENTRIES, OptionalWholeMsOrZero } from './node-options-schema.ts';
import { DEFAULT_SEND_TIMEOUT_MS } from './stalled-connections.ts';
import { prepareNodeGateway } from './to-node-handler.ts';

/**
 * Options of {@link serve}. The limits bound what one caller can make the server keep: Node's own
 * defaults (5 min per request, no connection limit) are made for general-purpose servers. Each
 * option is checked before anything listens: a wrong one (or an unknown name) rejects with a
 * `GatewayConfigError` naming it.
 *
 * @example
 * // Behind a proxy that pools connections, allow more of them.
 * await serve(gateway, { port: 8787, maxConnections: 2048 });
 */
export interface ServeOptions extends NodeHandlerOptions {
  /**
   * Port to listen on, a whole number from 0 to 65535 (a number: `Number(process.env.PORT)`);
   * `0` picks a free one (see `url`). Defaults to 8787.
   */
  readonly port?: number;
  /**
   * Interface to bind: an IP address or a host name, without brackets or port. Defaults to
   * `127.0.0.1` (loopback) — pass `0.0.0.0` to expose it. An empty string (an unset environment
   * variable) is refused: Node would listen on every interface.
   */
  readonly hostname?: string;
  /**
   * Time allowed to receive a whole request, headers and body (not to answer it): a slower
   * sender gets `408` and the connection is closed. `0` disables it. Defaults to 30 000 ms
   * (Node: 300 000).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Time allowed to receive the request headers; at most `requestTimeoutMs`. `0` disables it
   * (`requestTimeoutMs` still applies). Defaults to 10 000 ms (Node: 60 000).
   */
  readonly headersTimeoutMs?: number;
  /**
   * Idle time after which a kept-alive connection is closed. `0` disables it (Node's meaning:
   * idle connections stay open, within `maxConnections`). Defaults to 65 000 ms, longer than the
   * 60 s idle timeout of common load balancers, so they never reuse a connection the gateway is
   * closing (Node: 5 000).
   */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Open connections at most, a positive integer (`0` would refuse every connection, and `NaN`
   * or `Infinity` none); further ones are closed as soon as they are accepted. Defaults to 512
   * (Node: unlimited).
   */
  readonly maxConnections?: number;
  /**
   * Time an answer may wait for its client to take it: a connection with an answer written and not
   * gone out whole for this long (a client that stopped reading, or pipelines requests and never
   * reads the answers) is closed. `0` disables it. Defaults to 30 000 ms (Node: no limit; see
   * `closeStalledConnections`).
   */
  readonly sendTimeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;
const DEFAULT_MAX_CONNECTIONS = 512;

/** An IP address (IPv6 without brackets) or a DNS name: what `listen` resolves. */
const isHostname = (host: unknown): boolean =>
  typeof host === 'string' &&
  (isIP(host) !== 0 ||
    (host.length <= 253 && /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?$/.test(host)));

// Every key of ServeOptions with its schema: an option added to the interface without one here
// fails the typecheck.
const SERVE_ENTRIES = {
  ...NODE_HANDLER_ENTRIES,
  port: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is<number>(
      (port) => Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65_535,
      'expected a whole number from 0 to 65535 (0 picks a free port).',
    ),
  ),
  hostname: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is<string>(
      isHostname,
      /* @__PURE__ */ fromEnv(
        'expected an IP address or a host name, e.g. "127.0.0.1", "::1" or "0.0.0.0".',
      ),
    ),
  ),
  requestTimeoutMs: OptionalWholeMsOrZero,
  headersTimeoutMs: OptionalWholeMsOrZero,
  keepAliveTimeoutMs: OptionalWholeMsOrZero,
  maxConnections: OptionalPositiveInteger,
  sendTimeoutMs: OptionalWholeMsOrZero,
} satisfies { readonly [Key in keyof ServeOptions]-?: v.GenericSchema };

const KNOWN = /* @__PURE__ */ Object.keys(SERVE_ENTRIES);
const ServeOptionsSchema = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ is<Record<string, unknown>>(isOptionsObject, 'expected an options object.'),
  /* @__PURE__ */ onlyKeys(
    KNOWN,
    (keys) =>
      `unknown option${keys.length > 1 ? 's' : ''} ${keys.map((key) => `"${key}"`).join(', ')} (known: ${KNOWN.join(', ')}).`,
  ),
  /* @__PURE__ */ optionsObject(SERVE_ENTRIES, 'expected an options object.'),
);

/**
 * Checks `serve`'s options (the adapter's own and `toNodeHandler`'s) before anything is created,
 * in the one message style: `serve: maxConnections is the number 0: expected a positive integer.`
 */
function checkServeOptions(options: ServeOptions): void {
  assertOptions(ServeOptionsSchema, options, 'serve');
  const { headersTimeoutMs } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // Node's rule, kept by the kit's server and named in the adapter's terms (`0` turns either
  // off); against the default request timeout too when only the headers timeout is given.
  if (requestTimeoutMs > 0 && headersTimeoutMs !== undefined && headersTimeoutMs > requestTimeoutMs)
    refusalFor('serve')(
      'headersTimeoutMs',
      headersTimeoutMs,
      `expected at most requestTimeoutMs (${requestTimeoutMs}), or 0.`,
    );
}

/** A running gateway server. */
export interface RunningServer {
  /** The underlying server (a `node:net` server that speaks HTTP/1.1), already listening. */
  readonly server: GatewayServer;
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /**
   * Stops accepting connections and closes idle ones; the others close once their request under
   * way is answered. Resolves when the server is closed.
   */
  close(): Promise<void>;
}

/**
 * Serves a gateway over HTTP/1.1, with the limits of {@link ServeOptions}: on a `node:net`
 * server that reads requests with the kit's own strict reader (no `node:http`: faster, and what a
 * proxy in front could read differently is refused; see `docs/decisions.md`). Requests a client
 * pipelines are answered one at a time. Resolves once the server listens; rejects when it cannot:
 * with a `GatewayConfigError` naming the option for a wrong option (checked before anything
 * listens, e.g. a `headersTimeoutMs` above `requestTimeoutMs`), or with Node's error (port in
 * use).
 *
 * @example
 * const { url } = await serve(gateway, { port: 8787 });
 * console.log(`gateway on ${url}`);
 */
export function serve(gateway: Gateway, options: ServeOptions = {}): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    // Inside the executor: a refused option throws, and becomes a rejection here.
    checkServeOptions(options);
    const hostname = options.hostname ?? '127.0.0.1';
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

/** `toNodeHandler`'s share of `serve`'s options (it refuses the server's own). */
function handlerOptions(options: ServeOptions): NodeHandlerOptions {
  const picked: Record<string, unknown> = {};
  for (const key of HANDLER_KEYS) if (key in options) picked[key] = options[key];
  return picked as NodeHandlerOptions;
}

const HANDLER_KEYS = /* @__PURE__ */ Object.keys(
  NODE_HANDLER_ENTRIES,
) as (keyof NodeHandlerOptions)[];

function createNodeServer(gateway: Gateway, options: ServeOptions): GatewayServer {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // A lower requestTimeoutMs alone lowers the headers timeout with it (it may not be longer).
  const headersTimeout =
    options.headersTimeoutMs ??
    (requestTimeout === 0
      ? DEFAULT_HEADERS_TIMEOUT_MS
      : Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout));
  const server = new GatewayServer(prepareNodeGateway(gateway, handlerOptions(options)), {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    sendTimeout: options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
  });
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  return server;
}
