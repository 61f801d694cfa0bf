import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import * as v from 'valibot';
import type { ApprovalsHandler } from '../../gateway/approvals-handler.ts';
import type { Gateway } from '../../gateway/create-gateway.ts';
import {
  HANDLE_CALL,
  handlerOf,
  supplyCallbackDefaults,
  WANTS_QUERY,
} from '../../gateway/handle-call.ts';
import type { BodyReadResult, GatewayCall, GatewayReply } from '../../http/gateway-call.ts';
import { errorReply } from '../../http/replies.ts';
import { isHostAndPort, pathOf, queryOf } from '../../http/request-target.ts';
import {
  assertOptions,
  is,
  isOptionsObject,
  strictOptionsObject,
} from '../../runtime/option-schemas.ts';
import { disconnectSignal } from '../node/disconnect-signal.ts';
import { type AllowedHosts, createHostGuard } from '../node/loopback-host.ts';
import {
  DRAIN_ENTRIES,
  OptionalAllowedHosts,
  OptionalBoolean,
} from '../node/node-options-schema.ts';
import { createPinnedFetch } from '../node/pinned-fetch.ts';
import { pipelinedTooFar, queuedAnswerTooLarge } from '../node/pipelining.ts';
import { resolveHostWithNodeDns } from '../node/resolve-host.ts';
import {
  bodyLength,
  DEFAULT_DRAIN_MAX_BYTES,
  DEFAULT_DRAIN_TIMEOUT_MS,
  type DrainLimits,
  drainBody,
  headerOf,
  INTERNAL_ERROR,
  readNodeBody,
} from '../node/to-node-handler.ts';

/**
 * Options of {@link fastifyGateway}, next to Fastify's own `prefix`.
 *
 * @example
 * await app.register(fastifyGateway, { gateway, prefix: '/gateway' });
 */
export interface FastifyGatewayOptions {
  /** The gateway to serve (from `createGateway`), or an operators' approvals API (`createApprovalsHandler`). */
  readonly gateway: Gateway | ApprovalsHandler;
  /**
   * Close the gateway (`gateway.close()`: timers, callback retries, default stores) in Fastify's
   * `onClose`, so `await app.close()` stops it too. Default `true`.
   */
  readonly closeGateway?: boolean;
  /**
   * Callbacks connect only to addresses the gateway's callback URL policy allows, judged when the
   * connection is made (no DNS rebinding), as with `toNodeHandler`. Applies when the gateway's
   * `callbacks` options set no `fetch` / `resolveHost` of their own. Default `true`.
   */
  readonly pinCallbackAddresses?: boolean;
  /**
   * A reply sent before the request body was read (401, 404, 413, 415 …) first reads and
   * discards up to this many bytes of the body, then closes the connection; a caller that sends
   * more is dropped after the reply. Defaults to 16 MiB; `0` drops every such connection.
   */
  readonly drainMaxBytes?: number;
  /**
   * How long such a reply waits for the rest of the body: a whole number of milliseconds up to
   * 2 147 483 647 (what a timer holds); `0` sends the reply without waiting. Defaults to
   * 5 000 ms.
   */
  readonly drainTimeoutMs?: number;
  /**
   * DNS-rebinding protection, as `toNodeHandler`'s: on a server listening on a loopback address,
   * a request whose `Host` (or `Origin`) names another host than `localhost`, `*.localhost`,
   * `127.x.x.x` or `[::1]` is answered `403 forbidden_host`. List the names a deliberate setup
   * uses (exact, or `.example.test` for a domain); `true` turns the check off.
   */
  readonly allowedHosts?: AllowedHosts;
  /** Fastify's own plugin options (`prefix`, `logLevel` …) pass through. */
  readonly prefix?: string;
}

/**
 * A Fastify request seen as a {@link GatewayCall}: Fastify's routing, trust-proxy settings and
 * request stream, with the plugin's prefix stripped from the path and added to the URL base.
 * A class, for the same reason as the Node adapter's: one hidden class for every request.
 */
class FastifyCall implements GatewayCall {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly #request: FastifyRequest;
  readonly #response: ServerResponse;
  readonly #prefix: string;
  #signal: AbortSignal | undefined;

  constructor(
    request: FastifyRequest,
    response: ServerResponse,
    path: string,
    prefix: string,
    withQuery: boolean,
  ) {
    const raw = request.raw;
    this.#request = request;
    this.#response = response;
    this.#prefix = prefix;
    this.method = raw.method ?? 'GET';
    this.path = path;
    this.query = withQuery ? queryOf(raw.url ?? '') : undefined;
  }

  header(name: string): string | undefined {
    return headerOf(this.#request.raw, name);
  }

  readBody(limit: number): Promise<BodyReadResult> {
    // The plugin's content-type parser hands over the request stream untouched (after any
    // preParsing hook); without a body there is none.
    const body = this.#request.body as Readable | undefined;
    if (body === undefined || body === null) {
      const raw = this.#request.raw;
      if (raw.readableEnded) return Promise.resolve({ kind: 'bytes', bytes: new Uint8Array(0) });
      return readNodeBody(raw, limit);
    }
    return readNodeBody(body as IncomingMessage, limit);
  }

  /** Made on first use: only a running action needs to learn of a disconnect. */
  get signal(): AbortSignal {
    this.#signal ??= disconnectSignal(this.#response);
    return this.#signal;
  }

  get requestBase(): string {
    // Fastify's own view of the request, so its `trustProxy` setting decides whether
    // X-Forwarded-Proto / X-Forwarded-Host count.
    const request = this.#request;
    const host = request.host;
    const proto = request.protocol === 'https' ? 'https' : 'http';
    return `${proto}://${host && isHostAndPort(host) ? host : 'localhost'}${this.#prefix}`;
  }
}

// The plugin's own options, and the ones Fastify's `register` documents (`prefix`, `logLevel`,
// `logSerializers`), which it hands the plugin too: anything else is a typo (`prefixx` would
// serve the gateway at the root) and is refused by name.
const FASTIFYS = /* @__PURE__ */ v.optional(/* @__PURE__ */ v.unknown());
const FASTIFY_ENTRIES = {
  gateway: /* @__PURE__ */ is(
    (gateway) => isOptionsObject(gateway) && HANDLE_CALL in gateway,
    'expected a gateway from createGateway() (or createApprovalsHandler()).',
  ),
  ...DRAIN_ENTRIES,
  closeGateway: OptionalBoolean,
  pinCallbackAddresses: OptionalBoolean,
  allowedHosts: OptionalAllowedHosts,
  // Fastify's, checked by Fastify.
  prefix: FASTIFYS,
} satisfies { readonly [Key in keyof FastifyGatewayOptions]-?: v.GenericSchema };
const FastifyGatewayOptionsSchema = /* @__PURE__ */ strictOptionsObject(
  { ...FASTIFY_ENTRIES, logLevel: FASTIFYS, logSerializers: FASTIFYS },
  'expected { gateway, drainMaxBytes?, drainTimeoutMs?, … }.',
);

const NOT_FOUND = errorReply('not_found');

/** Fastify's refusals before routing to a handler that the gateway answers in its own terms. */
const GATEWAYS_TO_ANSWER: ReadonlySet<string> = new Set([
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_ROUTE_MISSING_CONTENT_TYPE',
]);

/** The gateway's bodies are final: no serialisation, and no `; charset=utf-8` added to JSON. */
const asIs = (payload: unknown): string => payload as string;

function send(reply: FastifyReply, gatewayReply: GatewayReply, close: boolean): void {
  if (reply.sent || reply.raw.destroyed) return;
  if (queuedAnswerTooLarge(reply.raw.req, reply.raw, bodyLength(gatewayReply.body) ?? 0)) return;
  reply.code(gatewayReply.status).headers(gatewayReply.headers).serializer(asIs);
  if (close) reply.header('connection', 'close');
  reply.send(gatewayReply.body ?? undefined);
}

/**
 * Sends a reply through Fastify (its `onSend` hooks and request log included). A request body
 * still (partly) unread — the gateway answered before reading it — is drained first and the
 * connection closed, as the Node adapter does: see `toNodeHandler`'s `drainMaxBytes`.
 */
function sendReply(
  request: FastifyRequest,
  reply: FastifyReply,
  gatewayReply: GatewayReply,
  limits: DrainLimits,
): void {
  const raw = request.raw;
  // `complete` is node:http's; a request made by `app.inject()` has no socket to protect.
  if (raw.complete !== false) {
    send(reply, gatewayReply, false);
    return;
  }
  void drainBody(raw, limits).then((ended) => {
    send(reply, gatewayReply, true);
    if (!ended) reply.raw.once('finish', () => raw.socket.destroy());
  });
}

/** The plugin's content-type parser: every body is handed to the gateway as the raw stream. */
function passThrough(
  _request: FastifyRequest,
  payload: Readable,
  done: (error: Error | null, body?: unknown) => void,
): void {
  done(null, payload);
}

/**
 * A Fastify plugin serving a gateway under the prefix it is registered with (Fastify 5). Every
 * path below the prefix, with any method, goes to the gateway, which answers in the contract's
 * terms (its own 404, 405 and error envelopes). Request bodies reach the gateway as the raw stream: the plugin's
 * content-type parser, scoped to the plugin, hands them over unparsed, so the gateway's limits and
 * JSON checks apply and the app's other routes keep their own parsers. URLs in answers (manifest,
 * `statusUrl`, `cancelUrl`) include the prefix and follow Fastify's `trustProxy`; do not also set
 * the gateway's `basePath`. Replies go through `reply.send`, so the app's `onSend` hooks (CORS,
 * security headers) and request log apply. `app.close()` closes the gateway.
 *
 * For the gateway's own log lines to go to Fastify's logger, pass `fastifyLogger(app.log)` as
 * the gateway's `logger`.
 *
 * @example
 * import Fastify from 'fastify';
 * import { fastifyGateway, fastifyLogger } from '@svc/gateway-kit/fastify';
 *
 * const app = Fastify({ logger: true });
 * const gateway = createGateway({ ...options, logger: fastifyLogger(app.log) });
 * await app.register(fastifyGateway, { gateway, prefix: '/gateway' });
 * await app.listen({ port: 3000 });
 */
export const fastifyGateway: FastifyPluginAsync<FastifyGatewayOptions> = async (
  fastify: FastifyInstance,
  options: FastifyGatewayOptions,
): Promise<void> => {
  assertOptions(FastifyGatewayOptionsSchema, options, 'fastifyGateway');
  const gateway = options.gateway;
  const handle = handlerOf(gateway);
  const limits: DrainLimits = {
    maxBytes: options.drainMaxBytes ?? DEFAULT_DRAIN_MAX_BYTES,
    timeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
  };
  if (options.pinCallbackAddresses !== false) {
    supplyCallbackDefaults(gateway, (urlPolicy) => ({
      fetch: createPinnedFetch({ urlPolicy }),
      resolveHost: resolveHostWithNodeDns,
    }));
  }
  const wantsQuery = WANTS_QUERY in gateway;
  const refuseForeignHost = createHostGuard(options.allowedHosts);
  // Fastify's prefix of this plugin's context, nested prefixes included: `/gateway`, or ''.
  const prefix = fastify.prefix.replace(/\/+$/, '');

  const serve = (request: FastifyRequest, reply: FastifyReply): void => {
    if (pipelinedTooFar(request.raw, reply.raw)) return;
    const refused = refuseForeignHost(
      request.raw.headers.host,
      request.raw.headers.origin,
      request.raw.socket,
    );
    if (refused) {
      sendReply(request, reply, refused, limits);
      return;
    }
    const path = pathOf(request.raw.url ?? '/');
    let inner: string;
    if (prefix === '') inner = path;
    else if (
      path.startsWith(prefix) &&
      (path.length === prefix.length || path[prefix.length] === '/')
    )
      inner = path.slice(prefix.length);
    else {
      // Routed here, but outside the prefix once dot segments are resolved: not the gateway's.
      sendReply(request, reply, NOT_FOUND, limits);
      return;
    }
    const call = new FastifyCall(request, reply.raw, inner, prefix, wantsQuery);
    handle(call).then(
      (gatewayReply) => sendReply(request, reply, gatewayReply, limits),
      () => sendReply(request, reply, INTERNAL_ERROR, limits),
    );
  };

  // Scoped to this plugin (Fastify encapsulation): the app's other routes keep their parsers.
  fastify.removeAllContentTypeParsers();
  // JSON named as well as the catch-all: Fastify caches the parser it finds for a named type, and
  // re-parses the Content-Type header on every request that falls through to '*'.
  fastify.addContentTypeParser('application/json', passThrough);
  fastify.addContentTypeParser('*', passThrough);
  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    // Fastify refuses a Content-Type header it cannot parse, and a QUERY request without one,
    // before any handler runs; the gateway answers those requests itself (401 without a valid
    // token, else its 415 or 405 envelope).
    if (GATEWAYS_TO_ANSWER.has(error.code)) {
      serve(request, reply);
      return;
    }
    // Anything else (the app's own hooks: rate limits, auth …) is the app's error handler's.
    throw error;
  });
  if (options.closeGateway !== false && 'close' in gateway) {
    fastify.addHook('onClose', () => gateway.close());
  }
  fastify.all('/', serve);
  fastify.all('/*', serve);
  // A method Fastify does not route (PROPFIND, MKCOL …) under the prefix is the gateway's too: its
  // 405 envelope, not Fastify's 404. At the root the app's own not-found handler stays.
  if (prefix !== '') fastify.setNotFoundHandler(serve);
};
