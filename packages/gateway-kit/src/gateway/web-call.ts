import type { BodyReadResult, GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { readWebBody } from '../http/read-web-body.ts';
import { isHostAndPort, pathOf, queryOf } from '../http/request-target.ts';

/**
 * The core's {@link GatewayCall} over a Web `Request`. A class, with `header`, `readBody`,
 * `signal` and `requestBase` on its prototype: no closure per request (one stored on each Node
 * call kept finished requests alive until a full GC, docs/benchmarks.md), no second URL parse, and
 * the request's signal touched only when an action asks for it.
 */
class WebCall implements GatewayCall {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly waitUntil: ((work: Promise<unknown>) => void) | undefined;
  readonly #request: Request;
  readonly #url: string;
  /** Where the path starts in `#url` (after `scheme://host[:port]`; 0 when there is none). */
  readonly #pathStart: number;

  constructor(
    request: Request,
    waitUntil: ((work: Promise<unknown>) => void) | undefined,
    withQuery: boolean,
  ) {
    this.#request = request;
    this.waitUntil = waitUntil;
    this.method = request.method;
    // `Request#url` is absolute, but not always parsed and serialized: Deno joins the `Host` header
    // and the target as they came (dot segments and any forged host kept), undici keeps a fragment,
    // and Bun hands over the bare target when the `Host` makes no URL. For http(s) the path is
    // what follows the authority, so no second URL parse in the common case.
    let url = request.url;
    let pathStart = authorityEnd(url);
    if (pathStart === -1) {
      if (URL.canParse(url)) {
        // Another scheme: let the URL parser tell where the path is.
        const parsed = new URL(url);
        url = parsed.origin + parsed.pathname + parsed.search;
        pathStart = parsed.origin.length;
      } else {
        // Bun's bare target (`/v1/manifest`): there is no authority to build URLs from.
        pathStart = 0;
      }
    }
    this.#url = url;
    this.#pathStart = pathStart;
    const target = url.slice(pathStart);
    this.path = pathOf(target);
    this.query = withQuery ? queryOf(target) : undefined;
  }

  header(name: string): string | undefined {
    return this.#request.headers.get(name) ?? undefined;
  }

  /**
   * A body whose declared `Content-Length` is within `limit` is read whole with `arrayBuffer()`
   * (the runtime's own fast path: no stream reader, and on `@hono/node-server` no Web stream at
   * all); its length is checked again once read, in case the declaration was wrong. Any other body
   * is streamed and counted, stopping past `limit`.
   */
  readBody(limit: number): Promise<BodyReadResult> {
    const request = this.#request;
    const declared = request.headers.get('content-length');
    if (declared !== null && DECIMAL.test(declared) && Number(declared) <= limit) {
      return request
        .arrayBuffer()
        .then((buffer) =>
          buffer.byteLength > limit ? TOO_LARGE : { kind: 'bytes', bytes: new Uint8Array(buffer) },
        );
    }
    return readWebBody(request.body, limit);
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  /** `scheme://host[:port]` of the URL; `localhost` in place of a host that is not one. */
  get requestBase(): string {
    const base = this.#url.slice(0, this.#pathStart);
    const authority = base.indexOf('://') + 3;
    if (authority > 2 && isHostAndPort(base.slice(authority))) return base;
    return `${authority > 2 ? base.slice(0, authority) : 'http://'}localhost`;
  }
}

const DECIMAL = /^\d{1,15}$/;
const TOO_LARGE: BodyReadResult = { kind: 'too_large' };

/** The index of the first `/` after `http://` or `https://` and the authority; -1 for another scheme. */
function authorityEnd(url: string): number {
  const after = url.startsWith('https://') ? 8 : url.startsWith('http://') ? 7 : -1;
  if (after === -1) return -1;
  const slash = url.indexOf('/', after);
  return slash === -1 ? -1 : slash;
}

/**
 * Adapts a Web `Request` to the core's {@link GatewayCall}; `withQuery` also hands over the query
 * string (the approvals API reads it; the gateway's own routes do not).
 */
export function fromWebRequest(
  request: Request,
  waitUntil?: (work: Promise<unknown>) => void,
  withQuery = false,
): GatewayCall {
  return new WebCall(request, waitUntil, withQuery);
}

/** Adapts the core's {@link GatewayReply} to a Web `Response`. */
export function toWebResponse(reply: GatewayReply): Response {
  return new Response(reply.body as BodyInit | null, {
    status: reply.status,
    headers: reply.headers,
  });
}
