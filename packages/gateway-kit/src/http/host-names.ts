import { describeKind } from '../runtime/config-refusal.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';

// Host names as `Host` and `Origin` carry them, for the DNS-rebinding check of a server on
// loopback: the Node adapters' (which know the address they listen on) and `loopbackOnly` of
// `createGateway` (for `gateway.fetch` under Deno, Bun or any Fetch server, which does not).

/**
 * Host names a server bound to loopback answers besides the loopback ones: exact names
 * (`dev.example.test`), or a leading dot for a domain and its subdomains (`.example.test`);
 * `true` answers any host (no check).
 */
export type AllowedHosts = readonly string[] | true;

/** Loopback host names and addresses as they appear in `Host` and `Origin` (no port). */
export function isLoopbackName(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower-cased. */
export function hostnameOf(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(host.trim());
  return match ? match[1]!.toLowerCase().replace(/\.$/, '') : undefined;
}

/** The host name of an `Origin` header value, or `undefined` for `null` and anything else. */
export function originHostname(origin: string): string | undefined {
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

/**
 * Whether a request names only allowed hosts: its `Host` (required) and its `Origin` (when sent).
 * A web page reaching a loopback server through DNS rebinding sends its own name in both.
 *
 * @example
 * const allowed = hostMatcher(['dev.example.test']);
 * namesAllowedHosts('localhost:8787', undefined, allowed); // true
 * namesAllowedHosts('127.0.0.1:8787', 'http://evil.example', allowed); // false
 */
export function namesAllowedHosts(
  host: string | undefined,
  origin: string | undefined,
  allowed: (hostname: string) => boolean,
): boolean {
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (hostname === undefined || !allowed(hostname)) return false;
  if (origin === undefined) return true;
  const fromOrigin = originHostname(origin);
  return fromOrigin !== undefined && allowed(fromOrigin);
}
