/**
 * The gateway core's view of one HTTP exchange. It is deliberately smaller than `Request` and
 * `Response`: the `fetch` entry point adapts Web objects to it, and runtime adapters (node:http)
 * adapt their native objects directly, so the hot path allocates no Web streams it does not need.
 */
export interface GatewayCall {
  readonly method: string;
  /** Path without query string, as sent (percent-encoded). */
  readonly path: string;
  /** The query string without `?` (`''` when none); not read by the gateway's own routes. */
  readonly query?: string | undefined;
  /**
   * A request header by lower-case name. A method, called on the call: adapters implement it on
   * their class's prototype, so no request carries a closure of its own (a closure stored on each
   * call made V8 keep every request's objects until a full GC).
   */
  header(name: string): string | undefined;
  /** Reads the body, stopping as soon as more than `limit` bytes arrived. */
  readBody(limit: number): Promise<BodyReadResult>;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal | undefined;
  /**
   * `scheme://host[:port]` the request was addressed to, plus any path prefix a framework already
   * stripped before the gateway saw the path (Express's mount path): the base of absolute URLs in
   * answers when no `gateway.url` is configured.
   */
  readonly requestBase: string;
  /** The platform's per-request `waitUntil` (Workers-style), for work that outlives the response. */
  readonly waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/** The outcome of reading a request body. `parsed` is a body a framework already decoded. */
export type BodyReadResult =
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'parsed'; readonly value: unknown }
  | { readonly kind: 'too_large' };

/** What the core answers; adapters turn it into their native response. */
export interface GatewayReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | null;
}
