import { lookup } from 'node:dns/promises';

/**
 * Resolves a host name with the operating system's resolver (`getaddrinfo`, the one Node's
 * `fetch` uses, so `/etc/hosts` and search domains count), returning every IPv4 and IPv6
 * address. Pass it as `resolveHost` to `deliverCallback`, `CallbackDispatcher` or
 * `checkCallbackUrlResolved` so that names resolving to private addresses are refused too.
 * Rejects when the name does not resolve.
 *
 * @example
 * import { CallbackDispatcher } from '@svc/gateway-kit';
 * import { resolveHostWithNodeDns } from '@svc/gateway-kit/node';
 * const callbacks = new CallbackDispatcher({ resolveHost: resolveHostWithNodeDns });
 */
export async function resolveHostWithNodeDns(hostname: string): Promise<string[]> {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const addresses = await lookup(bare, { all: true, order: 'verbatim' });
  return addresses.map((entry) => entry.address);
}
