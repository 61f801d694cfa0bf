// What a request says about where it was sent (its target and its `Host`), read the same way by
// every entry point: `gateway.fetch` on Deno, Bun and Workers, and the Node and Fastify adapters.

// A host (name or IP literal) with an optional port of up to five digits.
const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/**
 * Whether a `Host` (or `X-Forwarded-Host`) value is a `host[:port]` that can start an absolute
 * URL: a name or IP literal and a port up to 65535. Anything else is not used to build URLs, so a
 * forged header cannot put a non-URL (`a b`, `user:pw@host`, `[::1`, `host:99999`) into the
 * manifest or job URLs.
 *
 * @example
 * isHostAndPort('gateway.example:8443'); // true
 * isHostAndPort('user:pw@evil.example'); // false
 */
export function isHostAndPort(host: string): boolean {
  const match = HOST.exec(host);
  return match !== null && (match[2] === undefined || Number(match[2]) <= 65_535);
}

/**
 * The path of a request target, without query or fragment, normalised as `new URL` would for dot
 * segments and absolute-form targets.
 *
 * @example
 * pathOf('/v1/./jobs/../manifest?x#y'); // '/v1/manifest'
 */
export function pathOf(target: string): string {
  const end = endOfPath(target);
  const path = end === -1 ? target : target.slice(0, end);
  // The common case needs no URL parse: an origin-form path without dot segments.
  if (path.startsWith('/') && !path.includes('/.') && (!path.includes('%') || !/\/%2e/i.test(path)))
    return path;
  try {
    return new URL(target, 'http://host.invalid').pathname;
  } catch {
    return path;
  }
}

/**
 * The query string of a request target, without `?` and without any fragment.
 *
 * @example
 * queryOf('/v1/approvals?status=pending#top'); // 'status=pending'
 */
export function queryOf(target: string): string {
  const end = endOfPath(target);
  if (end === -1 || target[end] === '#') return '';
  const hash = target.indexOf('#', end);
  return target.slice(end + 1, hash === -1 ? undefined : hash);
}

/** Where the path of a target ends: its first `?` or `#`, or -1. */
function endOfPath(target: string): number {
  const question = target.indexOf('?');
  const hash = target.indexOf('#');
  return hash === -1 || (question !== -1 && question < hash) ? question : hash;
}
