import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayReply } from '../../http/gateway-call.ts';
import { errorReply } from '../../http/replies.ts';
import { describeKind } from '../../runtime/config-refusal.ts';
import { GatewayConfigError } from '../../runtime/gateway-config-error.ts';

/**
 * Host names a server bound to loopback answers besides the loopback ones: exact names
 * (`dev.example.test`), or a leading dot for a domain and its subdomains (`.example.test`);
 * `true` answers any host (no check).
 */
export type AllowedHosts = readonly string[] | true;

/** Loopback host names and addresses as they appear in `Host` and `Origin` (no port). */
function isLoopbackName(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

/** A bound or local socket address on loopback (`127.0.0.0/8`, `::1`, IPv4-mapped `127.x`). */
export function isLoopbackAddress(address: string): boolean {
  return (
    address === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(address) ||
    /^::ffff:127(\.\d{1,3}){3}$/i.test(address)
  );
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower-cased. */
function hostnameOf(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(host.trim());
  return match ? match[1]!.toLowerCase().replace(/\.$/, '') : undefined;
}

/** The host name of an `Origin` header value, or `undefined` for `null` and anything else. */
function originHostname(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? url.hostname.toLowerCase()
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `entry` may be an `allowedHosts` entry: a host name, or `.domain`. */
export const isAllowedHostEntry = (entry: unknown): boolean =>
  typeof entry === 'string' && hostnameOf(entry.replace(/^\./, '')) !== undefined;

/** The message of an `allowedHosts` entry that is not a host name. */
export const ALLOWED_HOST_EXPECTED =
  'expected a host name, e.g. "dev.example.test" or ".example.test" (no scheme, path or spaces).';

/** Checks an `allowedHosts` option; returns the matcher for host names. */
export function hostMatcher(allowed: AllowedHosts | undefined): (hostname: string) => boolean {
  if (allowed === true) return () => true;
  if (allowed !== undefined && !Array.isArray(allowed)) {
    throw new GatewayConfigError(
      `allowedHosts is ${describeKind(allowed)}: expected true or a list of host names.`,
    );
  }
  const exact = new Set<string>();
  const domains: string[] = [];
  for (const [index, entry] of (allowed ?? []).entries()) {
    if (!isAllowedHostEntry(entry)) {
      throw new GatewayConfigError(
        `allowedHosts[${index}] is ${describeKind(entry)}: ${ALLOWED_HOST_EXPECTED}`,
      );
    }
    const name = (entry as string).toLowerCase();
    if (name.startsWith('.')) domains.push(name);
    else exact.add(name);
  }
  return (hostname) =>
    isLoopbackName(hostname) ||
    exact.has(hostname) ||
    domains.some((domain) => hostname === domain.slice(1) || hostname.endsWith(domain));
}

type ServerSocket = IncomingMessage['socket'] & {
  server?: { address?: () => AddressInfo | string | null };
};

const FORBIDDEN_HOST: GatewayReply = errorReply('forbidden_host');

/** Accepted `Host` (and `Origin`) values remembered for the fast path; more are judged each time. */
const MAX_REMEMBERED_HOSTS = 32;

/**
 * DNS-rebinding protection of a server bound to loopback: a web page whose name an attacker
 * points at 127.0.0.1 is same-origin with the local server and may send any request to it. Such
 * requests carry the page's name in `Host` (and `Origin`), so on a loopback server both must name
 * a loopback host (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`) or one of `allowedHosts`.
 * The guard answers the `403 forbidden_host` reply for a request that fails, `undefined`
 * otherwise. Near-free on the hot path: whether a server listens on loopback is decided once per
 * server, and accepted `Host` and `Origin` values are remembered (a `Set` lookup, no parsing).
 */
export function createHostGuard(
  allowedHosts: AllowedHosts | undefined,
): (req: IncomingMessage) => GatewayReply | undefined {
  const allowed = hostMatcher(allowedHosts);
  if (allowedHosts === true) return () => undefined;
  const loopbackServers = new WeakMap<object, boolean>();
  const acceptedHosts = new Set<string>();
  const acceptedOrigins = new Set<string>();

  /** Whether the server that accepted `req` listens on a loopback address. */
  function servedOnLoopback(socket: ServerSocket): boolean {
    const server = socket.server;
    if (server?.address) {
      let known = loopbackServers.get(server);
      if (known === undefined) {
        const bound = server.address();
        // A Unix socket or a server not listening (yet): not reachable through 127.0.0.1.
        known = bound !== null && typeof bound === 'object' && isLoopbackAddress(bound.address);
        loopbackServers.set(server, known);
      }
      return known;
    }
    // No listening server to ask (a socket handed over by a framework): judge by this connection.
    return isLoopbackAddress(socket.localAddress ?? '');
  }

  return (req) => {
    const host = req.headers.host;
    const origin = req.headers.origin;
    if (
      host !== undefined &&
      acceptedHosts.has(host) &&
      (origin === undefined || acceptedOrigins.has(origin))
    )
      return undefined;
    if (!servedOnLoopback(req.socket as ServerSocket)) return undefined;
    const hostname = host === undefined ? undefined : hostnameOf(host);
    if (hostname === undefined || !allowed(hostname)) return FORBIDDEN_HOST;
    if (origin !== undefined) {
      const fromHost = originHostname(origin);
      if (fromHost === undefined || !allowed(fromHost)) return FORBIDDEN_HOST;
      if (acceptedOrigins.size < MAX_REMEMBERED_HOSTS) acceptedOrigins.add(origin);
    }
    if (acceptedHosts.size < MAX_REMEMBERED_HOSTS) acceptedHosts.add(host!);
    return undefined;
  };
}
