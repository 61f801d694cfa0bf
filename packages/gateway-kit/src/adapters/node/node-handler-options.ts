import type { AllowedHosts } from './loopback-host.ts';

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /**
   * Trust `X-Forwarded-Proto` / `X-Forwarded-Host` when deriving absolute URLs (behind a proxy you
   * control). Defaults to `false`. Irrelevant when `gateway.url` is configured.
   */
  readonly trustProxy?: boolean;
  /**
   * Callbacks connect only to addresses the gateway's callback URL policy allows, judged when the
   * connection is made ({@link createPinnedFetch}, with `resolveHostWithNodeDns` checking names
   * first), so a name that resolves differently at connect time (DNS rebinding) is refused.
   * Applies when the gateway's `callbacks` options set no `fetch` / `resolveHost` of their own.
   * Default `true`.
   */
  readonly pinCallbackAddresses?: boolean;
  /**
   * A reply sent before the request body was read (401, 404, 413, 415 …) first reads and
   * discards up to this many bytes of the body, so that the caller — or the proxy in front —
   * reads the reply instead of a connection reset; the connection is then closed. A caller that
   * sends more (or declares more in `Content-Length`) gets the reply at once and the connection
   * is dropped. Defaults to 16 MiB; `0` drops every such connection at once.
   */
  readonly drainMaxBytes?: number;
  /**
   * How long such a reply waits for the rest of the body before it is sent anyway and the
   * connection dropped, so that a body trickled byte by byte cannot hold a connection: a whole
   * number of milliseconds up to 2 147 483 647 (what a timer holds); `0` sends the reply without
   * waiting. Defaults to 5 000 ms.
   */
  readonly drainTimeoutMs?: number;
  /**
   * DNS-rebinding protection. On a server listening on a loopback address (`127.0.0.1`, `::1`),
   * requests whose `Host` — or `Origin`, when sent — names another host than `localhost`,
   * `*.localhost`, `127.x.x.x` or `[::1]` are answered `403 forbidden_host`: a web page whose
   * name is pointed at 127.0.0.1 could otherwise call the local gateway with a token it knows.
   * List the names a deliberate setup uses (a reverse proxy on the same machine that keeps the
   * public `Host`, a name in `/etc/hosts`): exact names, or `.example.test` for a domain and its
   * subdomains; `true` turns the check off. Servers listening on other addresses are not checked.
   */
  readonly allowedHosts?: AllowedHosts;
}
