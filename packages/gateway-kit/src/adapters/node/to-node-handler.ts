import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApprovalsHandler } from '../../gateway/approvals-handler.ts';
import type { Gateway } from '../../gateway/create-gateway.ts';
import {
  handlerOf,
  responderOf,
  supplyCallbackDefaults,
  WANTS_QUERY,
} from '../../gateway/handle-call.ts';
import type { BodyReadResult, GatewayCall, GatewayReply } from '../../http/gateway-call.ts';
import { errorReply, JSON_HEADERS } from '../../http/replies.ts';
import { isHostAndPort, pathOf, queryOf } from '../../http/request-target.ts';
import { assertOptions, strictOptionsObject } from '../../runtime/option-schemas.ts';
import { disconnectSignal } from './disconnect-signal.ts';
import { createHostGuard } from './loopback-host.ts';
import type { NodeHandlerOptions } from './node-handler-options.ts';
import { NODE_HANDLER_ENTRIES } from './node-options-schema.ts';
import { createPinnedFetch } from './pinned-fetch.ts';
import { pipelinedTooFar, queuedAnswerTooLarge } from './pipelining.ts';
import { resolveHostWithNodeDns } from './resolve-host.ts';

export const DEFAULT_DRAIN_MAX_BYTES: number = 16 * 1024 * 1024;
export const DEFAULT_DRAIN_TIMEOUT_MS: number = 5_000;

/** A request as frameworks hand it over: Express and others may have parsed the body already. */
export type NodeRequest = IncomingMessage & { body?: unknown; _body?: boolean; baseUrl?: string };

const EMPTY: Buffer = Buffer.alloc(0);

export function readNodeBody(req: NodeRequest, limit: number): Promise<BodyReadResult> {
  // Express' body parsers consume the stream and leave the result on `req.body`.
  if (req.body !== undefined && (req._body === true || req.readableEnded)) {
    const body = req.body;
    if (typeof body === 'string')
      return Promise.resolve({ kind: 'bytes', bytes: Buffer.from(body) });
    if (body instanceof Uint8Array) return Promise.resolve({ kind: 'bytes', bytes: body });
    return Promise.resolve({ kind: 'parsed', value: body });
  }
  return new Promise((resolve) => {
    // Most bodies arrive in one chunk: kept as it is, with no array (see below).
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    let total = 0;
    let done = false;
    const onData = (chunk: Buffer): void => {
      if (done) return;
      total += chunk.length;
      if (total > limit) {
        // Stop buffering at once; the reply drains the rest and closes (see sendReply).
        done = true;
        req.off('data', onData);
        req.pause();
        resolve({ kind: 'too_large' });
      } else if (first === undefined) first = chunk;
      else if (rest === undefined) rest = [first, chunk];
      else rest.push(chunk);
    };
    // The stream has ended (or failed): nothing more comes, so its listeners stay (removing them
    // is work for nothing on every request).
    const onEnd = (): void => {
      if (done) return;
      done = true;
      resolve({
        kind: 'bytes',
        bytes: rest === undefined ? (first ?? EMPTY) : Buffer.concat(rest, total),
      });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onEnd);
  });
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

// Node keeps only the first of duplicated singleton headers; Fetch joins them. Joining here too
// makes a request with two Authorization or Content-Type headers fail the same way on every
// runtime (401 / 415) instead of silently using the first.
const JOINED_IF_REPEATED = new Set(['authorization', 'content-type']);

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  if (JOINED_IF_REPEATED.has(name)) {
    const raw = req.rawHeaders;
    let joined: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const sent = raw[i]!;
      // Most clients send lower-case names: compared as they are, no lower-cased copy.
      if (sent === name || (sent.length === name.length && sent.toLowerCase() === name)) {
        joined = joined === undefined ? raw[i + 1]! : `${joined}, ${raw[i + 1]!}`;
      }
    }
    return joined;
  }
  return firstHeader(req.headers[name]);
}

/**
 * A `node:http` exchange seen as a {@link GatewayCall}. A class with methods, not an object
 * literal with getters nor fields holding closures: a literal's getters are new closures each
 * time, which gives every request its own hidden class (allocated in old space), and a closure
 * stored on each instance made V8 keep every request's objects (the request, its body, its
 * promises) until the next full GC. Either way the young generation grows and every scavenge
 * copies megabytes of finished requests: a third of the adapter's cost under load.
 */
class NodeCall implements GatewayCall {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly #req: NodeRequest;
  readonly #res: ServerResponse;
  readonly #trustProxy: boolean;
  #signal: AbortSignal | undefined;

  constructor(req: NodeRequest, res: ServerResponse, trustProxy: boolean, withQuery: boolean) {
    this.#req = req;
    this.#res = res;
    this.#trustProxy = trustProxy;
    const url = req.url ?? '/';
    this.method = req.method ?? 'GET';
    this.path = pathOf(url);
    // Only handlers that read the query string (the approvals API) get it: the gateway does not.
    this.query = withQuery ? queryOf(url) : undefined;
  }

  header(name: string): string | undefined {
    return headerOf(this.#req, name);
  }

  readBody(limit: number): Promise<BodyReadResult> {
    return readNodeBody(this.#req, limit);
  }

  /** Made on first use: only a running action needs to learn of a disconnect. */
  get signal(): AbortSignal {
    this.#signal ??= disconnectSignal(this.#res);
    return this.#signal;
  }

  get requestBase(): string {
    const req = this.#req;
    return requestBaseOf(
      this.#trustProxy,
      (name) => firstHeader(req.headers[name]),
      (req.socket as { encrypted?: boolean }).encrypted === true,
      // Express strips its mount path from req.url and keeps it in req.baseUrl.
      req.baseUrl ?? '',
    );
  }
}

/**
 * `scheme://host[:port]` plus `prefix`, as a Node server's request was addressed: the forwarded
 * scheme and host when the proxy is trusted, else the connection's and `Host`; `localhost` for a
 * host that cannot start a URL.
 */
export function requestBaseOf(
  trustProxy: boolean,
  header: (name: string) => string | undefined,
  encrypted: boolean,
  prefix: string,
): string {
  const forwardedProto = trustProxy
    ? header('x-forwarded-proto')?.split(',')[0]?.trim()
    : undefined;
  const forwardedHost = trustProxy ? header('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  const proto =
    forwardedProto === 'https' || forwardedProto === 'http'
      ? forwardedProto
      : encrypted
        ? 'https'
        : 'http';
  const host = forwardedHost ?? header('host');
  return `${proto}://${host && isHostAndPort(host) ? host : 'localhost'}${prefix}`;
}

/** {@link JSON_HEADERS} as a flat list of names and values. */
const JSON_HEAD: readonly string[] = Object.entries(JSON_HEADERS).flat();

/** Bytes of a reply's body, `undefined` without one. */
export function bodyLength(body: GatewayReply['body']): number | undefined {
  if (body === null) return undefined;
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

function writeReply(res: ServerResponse, reply: GatewayReply, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const { body } = reply;
  const length = bodyLength(body);
  if (queuedAnswerTooLarge(res.req, res, length ?? 0)) return;
  // Headers as one flat list (which writeHead takes as it is): no copy of the reply's headers, and
  // the common JSON reply's list is written out whole.
  let head: (string | number)[];
  if (reply.headers === JSON_HEADERS && length !== undefined) {
    head = [...JSON_HEAD, 'content-length', length];
  } else {
    head = [];
    for (const name in reply.headers) head.push(name, reply.headers[name]!);
    if (length !== undefined) head.push('content-length', length);
  }
  // Node then ends the connection once the reply is written.
  if (close) head.push('connection', 'close');
  res.writeHead(reply.status, head);
  // The head and a string body go out in one write.
  res.end(body ?? undefined);
}

export interface DrainLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/**
 * Reads and discards the rest of a request body; resolves `true` once it ended within the
 * limits, `false` when they were hit or the request failed (it is then left paused).
 */
export function drainBody(req: IncomingMessage, limits: DrainLimits): Promise<boolean> {
  const declared = Number(req.headers['content-length']);
  if (declared > limits.maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let drained = 0;
    const finish = (ended: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onFail);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer): void => {
      drained += chunk.length;
      if (drained > limits.maxBytes) finish(false);
    };
    const onEnd = (): void => finish(true);
    const onFail = (): void => finish(false);
    const timer = setTimeout(onFail, limits.timeoutMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onFail);
    req.once('close', onFail);
    req.resume();
  });
}

/**
 * Whether a request's framing says it has no body (RFC 9112 §6.3): no `Transfer-Encoding`, and no
 * `Content-Length` or a zero one. Such a request is not yet `complete` while the gateway answers
 * it straight away (Node marks it once the handler returns), but there is nothing to drain.
 */
function declaresNoBody(req: IncomingMessage): boolean {
  const { headers } = req;
  return (
    headers['transfer-encoding'] === undefined &&
    (headers['content-length'] === undefined || Number(headers['content-length']) === 0)
  );
}

/**
 * Sends a reply. A request whose body is still (partly) unread — the gateway answered before
 * reading it — is drained first: closing a socket with unread bytes in its receive buffer sends
 * a TCP reset, which destroys the reply before the caller reads it. The connection is then
 * closed, and dropped outright when the caller sent more than the drain limits allow.
 */
function sendReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: GatewayReply,
  limits: DrainLimits,
): void {
  // The hot path: the body was read to its end, or there is none (a GET answered at once).
  if (req.complete || declaresNoBody(req)) {
    writeReply(res, reply, false);
    return;
  }
  void drainBody(req, limits).then((ended) => {
    writeReply(res, reply, true);
    if (!ended) res.once('finish', () => req.socket.destroy());
  });
}

/** The answer to an HTTP/1.1 request without `Host`, which RFC 9112 §3.2 requires a 400 for. */
export const MISSING_HOST: GatewayReply = /* @__PURE__ */ errorReply('malformed_request', {
  message: 'An HTTP/1.1 request must carry a Host header.',
});

/**
 * Whether `req` is an HTTP/1.1 request without `Host`. Node answers those itself with an empty
 * 400 unless the server sets `requireHostHeader: false`, as `serve()` does so that the caller gets
 * the error envelope.
 */
function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1;
}

// A misspelt `trustProxy` or `allowedHosts` would otherwise silently keep its default.
const NodeHandlerOptionsSchema = /* @__PURE__ */ strictOptionsObject(
  NODE_HANDLER_ENTRIES,
  'expected an options object.',
  'options',
);

export const INTERNAL_ERROR: GatewayReply = {
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"error":{"code":"internal_error","message":"The gateway failed unexpectedly.","retryable":false}}',
};

/** What both Node servers (`toNodeHandler`'s and `serve()`'s own) make of a gateway and options. */
export interface NodeGateway {
  readonly handle: ReturnType<typeof handlerOf>;
  readonly respond: ReturnType<typeof responderOf>;
  readonly trustProxy: boolean;
  readonly limits: DrainLimits;
  /** Whether the handler reads the query string (the approvals API). */
  readonly wantsQuery: boolean;
  readonly refuseForeignHost: ReturnType<typeof createHostGuard>;
}

/**
 * The gateway's handler and the options' limits, read once; callbacks from Node connect only to
 * the addresses the URL policy allows, checked when the connection is made (no DNS rebinding),
 * unless the gateway's options chose a fetch. Options are checked by the caller.
 */
export function prepareNodeGateway(
  gateway: Gateway | ApprovalsHandler,
  options: NodeHandlerOptions,
): NodeGateway {
  if (options.pinCallbackAddresses !== false) {
    supplyCallbackDefaults(gateway, (urlPolicy) => ({
      fetch: createPinnedFetch({ urlPolicy }),
      resolveHost: resolveHostWithNodeDns,
    }));
  }
  return {
    handle: handlerOf(gateway),
    respond: responderOf(gateway),
    trustProxy: options.trustProxy ?? false,
    limits: {
      maxBytes: options.drainMaxBytes ?? DEFAULT_DRAIN_MAX_BYTES,
      timeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
    },
    wantsQuery: WANTS_QUERY in gateway,
    refuseForeignHost: createHostGuard(options.allowedHosts),
  };
}

/**
 * Turns a gateway into a `node:http` request listener. Also works as Express/Connect middleware:
 * mount it before `express.json()`, so the gateway reads and judges every body itself (a body a
 * parser already consumed is used as parsed, but the parser answers what it refuses).
 * Node's own objects are adapted directly, without building Web `Request`/`Response` objects.
 *
 * @example
 * import { createServer } from 'node:http';
 * // answerClientError: what Node refuses before the handler gets an error envelope too.
 * createServer(toNodeHandler(gateway)).on('clientError', answerClientError).listen(8787);
 * // Express, before any body parser (URLs get the mount path from req.baseUrl):
 * // app.use('/gateway', toNodeHandler(gateway)); app.use(express.json());
 * // The operators' approvals API: toNodeHandler(createApprovalsHandler(gateway, options)).
 */
export function toNodeHandler(
  gateway: Gateway | ApprovalsHandler,
  options: NodeHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  assertOptions(NodeHandlerOptionsSchema, options, 'toNodeHandler');
  const { handle, respond, trustProxy, limits, wantsQuery, refuseForeignHost } = prepareNodeGateway(
    gateway,
    options,
  );
  return (req, res) => {
    if (pipelinedTooFar(req, res)) return;
    const refused = lacksHost(req)
      ? MISSING_HOST
      : refuseForeignHost(req.headers.host, req.headers.origin, req.socket);
    if (refused) {
      sendReply(req, res, refused, limits);
      return;
    }
    const call = new NodeCall(req as NodeRequest, res, trustProxy, wantsQuery);
    if (respond) {
      respond(call, (reply) => sendReply(req, res, reply, limits));
      return;
    }
    handle(call).then(
      (reply) => sendReply(req, res, reply, limits),
      () => sendReply(req, res, INTERNAL_ERROR, limits),
    );
  };
}
