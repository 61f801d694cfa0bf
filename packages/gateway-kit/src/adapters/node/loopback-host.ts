import type { AddressInfo, Socket } from 'node:net';
import type { GatewayReply } from '../../http/gateway-call.ts';
import { type AllowedHosts, hostMatcher, namesAllowedHosts } from '../../http/host-names.ts';
import { errorReply } from '../../http/replies.ts';

export type { AllowedHosts } from '../../http/host-names.ts';
export { ALLOWED_HOST_EXPECTED, isAllowedHostEntry } from '../../http/host-names.ts';

/** A bound or local socket address on loopback (`127.0.0.0/8`, `::1`, IPv4-mapped `127.x`). */
export function isLoopbackAddress(address: string): boolean {
  return (
    address === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(address) ||
    /^::ffff:127(\.\d{1,3}){3}$/i.test(address)
  );
}

type ServerSocket = Socket & {
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
): (
  host: string | undefined,
  origin: string | undefined,
  socket: Socket,
) => GatewayReply | undefined {
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

  return (host, origin, socket) => {
    if (
      host !== undefined &&
      acceptedHosts.has(host) &&
      (origin === undefined || acceptedOrigins.has(origin))
    )
      return undefined;
    if (!servedOnLoopback(socket as ServerSocket)) return undefined;
    if (!namesAllowedHosts(host, origin, allowed)) return FORBIDDEN_HOST;
    if (origin !== undefined && acceptedOrigins.size < MAX_REMEMBERED_HOSTS)
      acceptedOrigins.add(origin);
    if (acceptedHosts.size < MAX_REMEMBERED_HOSTS) acceptedHosts.add(host!);
    return undefined;
  };
}
