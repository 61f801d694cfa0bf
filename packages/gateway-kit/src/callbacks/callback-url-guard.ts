import { refuseCallbackOption } from './callback-config-error.ts';
import { type AddressRefusal, classifyIp, parseIpLiteral } from './ip-ranges.ts';

/**
 * Why a callback URL was refused. Stable, short codes that never contain any part of the URL.
 *
 * @example
 * const reason: CallbackUrlRefusal = 'private_address';
 */
export type CallbackUrlRefusal =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'insecure_scheme'
  | 'credentials_in_url'
  | 'loopback_hostname'
  | 'local_hostname'
  | AddressRefusal
  | 'resolves_to_blocked_address'
  | 'dns_lookup_failed';

/**
 * The outcome of a callback URL check: the parsed URL, or a refusal reason.
 *
 * @example
 * const check: CallbackUrlCheck = checkCallbackUrl('https://hooks.example.com/jobs');
 * if (check.ok) console.log(check.url.host);
 */
export type CallbackUrlCheck =
  | {
      /** The URL passed the guard. */
      readonly ok: true;
      /** The parsed URL. */
      readonly url: URL;
    }
  | {
      /** The URL was refused. */
      readonly ok: false;
      /** Why the URL was refused. */
      readonly reason: CallbackUrlRefusal;
    };

/**
 * What the SSRF guard lets through beyond its default (https to a public host only).
 *
 * @example
 * // Tests and local development: http://127.0.0.1:3000/callbacks is accepted.
 * const devPolicy: CallbackUrlPolicy = { allowInsecureLoopback: true };
 */
export interface CallbackUrlPolicy {
  /**
   * Development/test opt-in: accept loopback targets (`127.0.0.0/8`, `::1`, `localhost`,
   * `*.localhost`) and allow plain `http:` to them. Public hosts still need https. Default `false`.
   */
  readonly allowInsecureLoopback?: boolean;
  /**
   * Hosts you trust although they are local or private (e.g. `hooks.corp.internal`,
   * `10.1.2.3`, `[fd00::1]`): exact host match, case-insensitive, port ignored. They skip the
   * address and DNS checks but still need https and no credentials. Default none.
   */
  readonly allowHosts?: readonly string[];
}

const LOOPBACK_HINT =
  'loopback receivers are accepted only with createGateway({ callbacks: { urlPolicy: { allowInsecureLoopback: true } } }), for local development';
const ALLOW_HOSTS_HINT =
  'a trusted internal receiver can be listed in createGateway({ callbacks: { urlPolicy: { allowHosts: [...] } } })';

/**
 * The message for a refused callback URL: the stable reason code, then the gateway option that
 * would accept it, if one exists. Never contains any part of the URL.
 *
 * @example
 * callbackUrlRefusalMessage('loopback_address');
 * // 'Refused callback URL (loopback_address): loopback receivers are accepted only with createGateway({ callbacks: { urlPolicy: { allowInsecureLoopback: true } } }), for local development.'
 */
export function callbackUrlRefusalMessage(reason: CallbackUrlRefusal): string {
  const hint =
    reason === 'loopback_address' || reason === 'loopback_hostname'
      ? LOOPBACK_HINT
      : reason === 'insecure_scheme'
        ? `callback URLs need https; ${LOOPBACK_HINT}`
        : reason === 'private_address' || reason === 'local_hostname'
          ? ALLOW_HOSTS_HINT
          : undefined;
  return hint ? `Refused callback URL (${reason}): ${hint}.` : `Refused callback URL (${reason}).`;
}

/**
 * Resolves a hostname to IP addresses (both families), as the HTTP client would. Used by
 * {@link checkCallbackUrlResolved}; the Node adapter ships one (`resolveHostWithNodeDns`).
 *
 * @example
 * const resolveHost: ResolveHost = async (hostname) => ['93.184.215.14'];
 */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

// Names that only resolve inside a network (RFC 6761/6762/8375 and common private TLDs).
const LOCAL_TLDS: ReadonlySet<string> = new Set([
  'local',
  'internal', // includes metadata.google.internal and *.ec2.internal
  'localdomain',
  'lan',
  'home',
  'intranet',
  'corp',
  'private',
  'arpa', // home.arpa and reverse-lookup names
  'svc', // Kubernetes service names
]);

/**
 * `true` for a host name with an empty label: `a..b`, `.a`, and every trailing dot (`localhost.`,
 * `example.com..`). Resolvers treat such spellings inconsistently (`localhost.` is `localhost`
 * to some, a DNS query to others), so they are refused rather than normalised. IP literals are
 * exempt: `URL` already dropped a single trailing dot of an IPv4 address (`127.0.0.1.`).
 */
function hasEmptyLabel(hostname: string): boolean {
  if (hostname.startsWith('[')) return false;
  return hostname.startsWith('.') || hostname.endsWith('.') || hostname.includes('..');
}

function canonicalAllowedHost(entry: string): string {
  const host = entry.includes(':') && !entry.startsWith('[') ? `[${entry}]` : entry;
  let hostname: string;
  try {
    // An entry may be written fully qualified (`hooks.corp.internal.`); URLs may not.
    hostname = new URL(`https://${host}/`).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    hostname = '';
  }
  if (hostname === '' || hasEmptyLabel(hostname)) {
    refuseCallbackOption(
      'allowHosts',
      [entry],
      'expected host names or IP addresses (an entry is neither).',
    );
  }
  return hostname;
}

/**
 * Throws {@link CallbackConfigError} when an `allowHosts` entry is not a host, so that
 * misconfiguration surfaces when delivery is set up rather than at the first callback.
 * Internal: not re-exported from the package.
 *
 * @example
 * assertValidUrlPolicy({ allowHosts: ['bad host'] }); // throws CallbackConfigError
 */
export function assertValidUrlPolicy(policy: CallbackUrlPolicy | undefined): void {
  for (const entry of policy?.allowHosts ?? []) canonicalAllowedHost(entry);
}

/**
 * `true` when `hostname` (as `URL` gives it, lower case) is one of the policy's `allowHosts`, so
 * it skips the address checks. Internal: not re-exported from the package.
 *
 * @example
 * isAllowedHost('10.1.2.3', { allowHosts: ['0x0a010203'] }); // true
 */
export function isAllowedHost(hostname: string, policy: CallbackUrlPolicy | undefined): boolean {
  return (policy?.allowHosts ?? []).some((entry) => canonicalAllowedHost(entry) === hostname);
}

type HostVerdict = AddressRefusal | 'loopback_hostname' | 'local_hostname' | 'public';

function classifyHostname(hostname: string): HostVerdict {
  const ip = parseIpLiteral(hostname);
  if (ip) return classifyIp(ip);
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return 'loopback_hostname';
  const labels = hostname.split('.');
  // Single-label names resolve through search domains or /etc/hosts, i.e. inside the network.
  if (labels.length === 1 || LOCAL_TLDS.has(labels.at(-1)!)) return 'local_hostname';
  return 'public';
}

function isLoopback(verdict: HostVerdict): boolean {
  return verdict === 'loopback_address' || verdict === 'loopback_hostname';
}

/**
 * `true` when a resolved address (IP text, as a resolver returns it) may be connected to: public,
 * or loopback under `allowInsecureLoopback`. Internal: not re-exported from the package.
 *
 * @example
 * isAllowedAddress('127.0.0.1', { allowInsecureLoopback: true }); // true
 * isAllowedAddress('10.0.0.1', undefined); // false
 */
export function isAllowedAddress(address: string, policy: CallbackUrlPolicy | undefined): boolean {
  const ip = parseIpLiteral(address);
  const verdict = ip ? classifyIp(ip) : 'reserved_address';
  return verdict === 'public' || (policy?.allowInsecureLoopback === true && isLoopback(verdict));
}

/**
 * Checks a callback URL against the SSRF policy, judging the host literally (no DNS).
 *
 * Default policy: `https:` only; no `user:pass@`; the host must not be an IP literal in a
 * loopback, unspecified, private, link-local (cloud metadata), CGNAT, multicast, broadcast,
 * reserved, benchmarking or documentation range — in any textual form, since the URL is parsed
 * with WHATWG `URL` first (`http://0x7f000001`, `http://127.1`, `[::ffff:7f00:1]` are all
 * 127.0.0.1) — nor a local name (`localhost`, `*.localhost`, single-label names, `*.local`,
 * `*.internal`, …). A host name with an empty label, a trailing dot included
 * (`https://localhost./`, `https://a..b.example/`), is `invalid_url`. Any port is allowed.
 *
 * A public-looking name can still resolve to a private address; add
 * {@link checkCallbackUrlResolved} with a DNS resolver where one is available.
 *
 * @example
 * checkCallbackUrl('https://hooks.example.com/jobs'); // { ok: true, url: URL }
 * checkCallbackUrl('http://169.254.169.254/latest/'); // { ok: false, reason: 'link_local_address' }
 * checkCallbackUrl('http://127.0.0.1:3000/cb', { allowInsecureLoopback: true }); // ok
 * @throws {CallbackConfigError} when an `allowHosts` entry is not a host name or IP address.
 */
export function checkCallbackUrl(url: string | URL, policy?: CallbackUrlPolicy): CallbackUrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid_url' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: 'unsupported_scheme' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'credentials_in_url' };
  }
  const hostname = parsed.hostname.toLowerCase();
  if (hostname === '' || hasEmptyLabel(hostname)) return { ok: false, reason: 'invalid_url' };
  const verdict = isAllowedHost(hostname, policy) ? 'public' : classifyHostname(hostname);
  const loopbackAllowed = policy?.allowInsecureLoopback === true && isLoopback(verdict);
  if (verdict !== 'public' && !loopbackAllowed) return { ok: false, reason: verdict };
  if (parsed.protocol === 'http:' && !loopbackAllowed) {
    return { ok: false, reason: 'insecure_scheme' };
  }
  return { ok: true, url: parsed };
}

/**
 * {@link checkCallbackUrl}, then — for a host name that is not an IP literal and not in
 * `allowHosts` — resolves it with `resolveHost` and refuses it if any address is non-public
 * (`resolves_to_blocked_address`), or if resolution fails or is empty (`dns_lookup_failed`,
 * which callers may treat as temporary).
 *
 * The HTTP client resolves the name again when it connects, so a hostile DNS server can still
 * answer differently the second time (DNS rebinding); on Node, `createPinnedFetch` from
 * `@svc/gateway-kit/node` checks the addresses it actually connects to; elsewhere, route
 * callbacks through an egress proxy that enforces the same policy.
 *
 * @example
 * import { resolveHostWithNodeDns } from '@svc/gateway-kit/node';
 * const check = await checkCallbackUrlResolved(url, {}, resolveHostWithNodeDns);
 */
export async function checkCallbackUrlResolved(
  url: string | URL,
  policy: CallbackUrlPolicy | undefined,
  resolveHost: ResolveHost,
): Promise<CallbackUrlCheck> {
  const literal = checkCallbackUrl(url, policy);
  if (!literal.ok) return literal;
  const hostname = literal.url.hostname.toLowerCase();
  if (parseIpLiteral(hostname) || isAllowedHost(hostname, policy)) return literal;
  let addresses: readonly string[];
  try {
    addresses = await resolveHost(hostname);
  } catch {
    return { ok: false, reason: 'dns_lookup_failed' };
  }
  if (addresses.length === 0) return { ok: false, reason: 'dns_lookup_failed' };
  if (!addresses.every((address) => isAllowedAddress(address, policy))) {
    return { ok: false, reason: 'resolves_to_blocked_address' };
  }
  return literal;
}
