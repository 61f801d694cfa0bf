import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { type Duplex, Readable } from 'node:stream';
import { checkKeys, checkTimeout, refuse } from '../../client/validate-options.ts';
import { createWorkspaceEmulator, type WorkspaceEmulator } from '../emulator.ts';

/** Options of `serveWorkspaceEmulator`. */
export interface ServeEmulatorOptions {
  /** Port to listen on, a whole number from 0 to 65535; `0` (default) picks a free one. */
  port?: number | undefined;
  /**
   * Interface to bind: an IP address or a host name, without brackets or port. Default
   * `'127.0.0.1'` (local only). An empty string is refused: Node would listen on every interface.
   */
  host?: string | undefined;
  /** Emulator to serve; a fresh one by default. */
  emulator?: WorkspaceEmulator | undefined;
  /**
   * Most open connections; past it Node closes new ones at once. Default 128, which bounds the
   * request bodies held at once to 128 × `maxBodyBytes` (128 MiB by default).
   */
  maxConnections?: number | undefined;
  /**
   * Time a request may take to arrive, headers and body (headers alone: at most 10 s); past it
   * `408 request_timeout` and the connection is closed. Default 30 000 ms (Node: 300 000);
   * `false` turns it off.
   */
  requestTimeoutMs?: number | false | undefined;
  /**
   * Most bytes of answers written and not yet taken by their callers, over all connections; past
   * it `429 emulator_busy` with `Retry-After: 1`. Default 256 MiB. A connection whose answer makes
   * no progress for `requestTimeoutMs` is closed.
   */
  maxUnsentBytes?: number | undefined;
}

/** A running emulator server. */
export interface RunningEmulator {
  /** Base URL to pass as `baseUrl`, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** The port actually bound. */
  readonly port: number;
  /** The emulator the server serves: fail requests, read workspaces, reset. */
  readonly emulator: WorkspaceEmulator;
  /** Stops the server. */
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  // The body is streamed, not buffered: the emulator reads it up to its `maxBodyBytes`.
  const streamed = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    ...(streamed
      ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }
      : {}),
  } as RequestInit);
}

/**
 * Writes `response`. Answers handed to connections and not yet sent (a caller that does not read
 * a 64 MiB list) count against `unsent.limit` bytes over all connections: past it the answer is
 * `429 emulator_busy` with `Retry-After: 1`, which the client retries.
 */
async function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  unsent: { bytes: number; readonly limit: number },
): Promise<void> {
  const headers = Object.fromEntries(response.headers);
  let status = response.status;
  let body = Buffer.from(await response.arrayBuffer());
  if (unsent.bytes + body.length > unsent.limit) {
    status = 429;
    body = Buffer.from(
      '{"error":{"code":"emulator_busy","message":"The emulator holds too many answers not yet read; retry shortly"}}',
    );
    Object.assign(headers, { 'content-type': 'application/json', 'retry-after': '1' });
  }
  // A body the emulator did not read to the end (too large, or refused before reading) is not
  // drained: the connection closes after the answer.
  if (!req.complete) headers.connection = 'close';
  const size = body.length;
  unsent.bytes += size;
  res.once('close', () => {
    unsent.bytes -= size;
  });
  res.writeHead(status, headers);
  res.end(body);
}

const FACTORY = 'serveWorkspaceEmulator';

/** Every option of `serveWorkspaceEmulator` (typed: a new option cannot be left out). */
const SERVE_KEYS = /* @__PURE__ */ Object.keys({
  port: 1,
  host: 1,
  emulator: 1,
  maxConnections: 1,
  requestTimeoutMs: 1,
  maxUnsentBytes: 1,
} satisfies { readonly [K in keyof ServeEmulatorOptions]-?: 1 });

/** Checks the options before anything listens, naming the wrong one (`WorkspaceConfigError`). */
function checkServeOptions(options: ServeEmulatorOptions): void {
  if (typeof options !== 'object' || options === null)
    refuse('options', options, 'expected { port?, host?, emulator? }.', FACTORY);
  // A misspelt `port` would otherwise listen on a random port.
  checkKeys(options, SERVE_KEYS, FACTORY);
  const { port, host, emulator } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535))
    refuse('port', port, 'expected a whole number from 0 to 65535 (0 picks a free port).', FACTORY);
  // `listen(port, '')` binds every interface: an unset variable must not expose the emulator.
  if (
    host !== undefined &&
    !(
      typeof host === 'string' &&
      (isIP(host) !== 0 ||
        (host.length <= 253 && /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?$/.test(host)))
    )
  )
    refuse(
      'host',
      host,
      'expected an IP address or a host name, e.g. "127.0.0.1" or "::1".',
      FACTORY,
    );
  if (emulator !== undefined && typeof (emulator as { handle?: unknown })?.handle !== 'function')
    refuse('emulator', emulator, 'expected a createWorkspaceEmulator() result.', FACTORY);
  // Caps: 0 would refuse everything, NaN or Infinity lift them.
  for (const name of ['maxConnections', 'maxUnsentBytes'] as const) {
    const cap = options[name];
    if (cap !== undefined && !(Number.isSafeInteger(cap) && cap > 0))
      refuse(name, cap, 'expected a positive integer.', FACTORY);
  }
  checkTimeout('requestTimeoutMs', options.requestTimeoutMs, FACTORY);
}

/** The emulator's error envelope, written by hand on a socket Node has not parsed a request on. */
const clientError = (status: string, code: string, message: string): string => {
  const body = JSON.stringify({ error: { code, message } });
  return `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
};

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
  checkServeOptions(options);
  const emulator = options.emulator ?? createWorkspaceEmulator();
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const requestTimeout =
    options.requestTimeoutMs === false ? 0 : (options.requestTimeoutMs ?? 30_000);
  const unsent = { bytes: 0, limit: options.maxUnsentBytes ?? 256 * 1024 * 1024 };
  // Node's defaults (300 s per request, no connection limit) let a caller that trickles bodies
  // hold memory and sockets for minutes: a shared emulator must bound both.
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: requestTimeout === 0 ? 10_000 : Math.min(10_000, requestTimeout),
      // Node enforces both timeouts on this tick (default 30 s, which would add up to 30 s).
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      Promise.resolve()
        .then(() => emulator.handle(toRequest(req, origin)))
        .then((response) => send(req, res, response, unsent))
        .catch(() => {
          if (!res.headersSent) {
            res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
          }
          res.end('{"error":{"code":"internal_error","message":"Emulator failure"}}');
        });
    },
  );
  server.maxConnections = options.maxConnections ?? 128;
  // A caller that stops reading its answer holds it in memory: closed after that long idle.
  server.timeout = requestTimeout;
  const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
    // As `@svc/gateway-kit`'s node adapter: answer unless the request's answer has started.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      socket.write(
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? clientError(
              '408 Request Timeout',
              'request_timeout',
              'The request took too long to arrive',
            )
          : clientError('400 Bad Request', 'malformed_request', 'The request is not valid HTTP'),
      );
    }
    socket.destroy();
  };
  server.on('clientError', answerClientError);
  // A connection idle that long: a request that stalls, or a caller that does not read its answer.
  server.on('timeout', (socket: Duplex) =>
    answerClientError(
      Object.assign(new Error('idle'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
      socket,
    ),
  );
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
