import { checkOptionKeys, refuse } from '../options.ts';

/**
 * `loopbackOnly` of `createMcpHandler`: `true`, or the host names a deliberate setup adds to the
 * loopback ones (exact names, or `.example.test` for a domain and its subdomains).
 */
export type LoopbackOnly =
  | boolean
  | {
      /** Hosts allowed besides loopback ones; `.example.test` allows a domain and its subdomains. */
      readonly allowedHosts: readonly string[];
    };

const FACTORY = 'createMcpHandler';
// The keys of the object form: typed against it, so a new one cannot be forgotten.
const KNOWN = Object.keys({ allowedHosts: true } satisfies {
  readonly [Key in keyof Exclude<LoopbackOnly, boolean>]-?: true;
});
const LOOPBACK_V4 = /^127(\.\d{1,3}){3}$/;

function isLoopbackName(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    LOOPBACK_V4.test(hostname)
  );
}

/** The host name of a `Host` value (`name`, `name:port`, `[v6]:port`), lower-cased. */
function hostnameOf(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(host.trim());
  return match ? match[1]!.toLowerCase().replace(/\.$/, '') : undefined;
}

/** The host name of an `Origin` value; `undefined` for `null` and anything not http(s). */
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

/**
 * The request check of `loopbackOnly`: `undefined` when off, else a function telling whether a
 * request's `Host` and `Origin` (when sent) both name an allowed host. Throws
 * {@link McpConfigError} for an entry that is not a host name.
 */
export function loopbackHostCheck(
  option: LoopbackOnly | undefined,
): ((request: Request) => boolean) | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true)
    checkOptionKeys(
      FACTORY,
      'loopbackOnly',
      option,
      KNOWN,
      'expected true, false or { allowedHosts: [...] }.',
    );
  const exact = new Set<string>();
  const domains: string[] = [];
  const listed = option === true ? [] : option.allowedHosts;
  if (!Array.isArray(listed)) {
    refuse(FACTORY, 'loopbackOnly.allowedHosts', listed, 'expected a list of host names.');
  }
  for (const [index, entry] of (listed as readonly unknown[]).entries()) {
    if (typeof entry !== 'string' || hostnameOf(entry.replace(/^\./, '')) === undefined) {
      refuse(
        FACTORY,
        `loopbackOnly.allowedHosts[${index}]`,
        entry,
        'expected a host name, e.g. "dev.example.test" or ".example.test" (no scheme, path or spaces).',
      );
    }
    const name = entry.toLowerCase();
    if (name.startsWith('.')) domains.push(name);
    else exact.add(name);
  }
  const allowed = (hostname: string | undefined): boolean =>
    hostname !== undefined &&
    (isLoopbackName(hostname) ||
      exact.has(hostname) ||
      domains.some((domain) => hostname === domain.slice(1) || hostname.endsWith(domain)));
  return (request) => {
    // Runtimes put `Host` in the URL; most keep the header too.
    const host = request.headers.get('host') ?? new URL(request.url).host;
    if (!allowed(hostnameOf(host))) return false;
    const origin = request.headers.get('origin');
    return origin === null || allowed(originHostname(origin));
  };
}
