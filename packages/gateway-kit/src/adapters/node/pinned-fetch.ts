import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import {
  type CallbackUrlPolicy,
  checkCallbackUrl,
  isAllowedAddress,
  isAllowedHost,
  type ResolveHost,
} from '../../callbacks/callback-url-guard.ts';
import { resolveHostWithNodeDns } from './resolve-host.ts';

/** Options of {@link createPinnedFetch}. */
export interface PinnedFetchOptions {
  /** The SSRF policy, the same one given to the callbacks. Default: https to public hosts only. */
  readonly urlPolicy?: CallbackUrlPolicy;
  /** How host names are resolved. Default {@link resolveHostWithNodeDns} (the OS resolver). */
  readonly resolveHost?: ResolveHost;
}

const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** What `fetch` rejects with when a connection fails; the cause says why. */
function networkError(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function refusal(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const notFound = (cause?: unknown): Error =>
  Object.assign(refusal('ENOTFOUND', 'The callback host did not resolve.'), { cause });

/**
 * A `lookup` for `net.connect` that resolves with `resolveHost` and hands over only addresses the
 * policy allows; one blocked address fails the whole lookup, as `checkCallbackUrlResolved` does.
 */
function pinnedLookup(
  resolveHost: ResolveHost,
  policy: CallbackUrlPolicy | undefined,
  skipAddressCheck: boolean,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        if (!skipAddressCheck && !addresses.every((address) => isAllowedAddress(address, policy))) {
          const message = 'The callback host resolves to an address the URL policy refuses.';
          callback(refusal('ERR_CALLBACK_ADDRESS_REFUSED', message), '', 0);
          return;
        }
        const entries: LookupAddress[] = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter(({ family }) => family !== 0 && (!options.family || family === options.family));
        const first = entries[0];
        if (!first) callback(notFound(), '', 0);
        else if (options.all) callback(null, entries);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(notFound(error), '', 0),
    );
  };
}

function toResponse(res: IncomingMessage, method: string, signal: AbortSignal | null): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode ?? 0;
  let body: ReadableStream<Uint8Array> | null = null;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) res.resume();
  else {
    body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
    if (signal) {
      const onAbort = (): void => {
        res.destroy(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      res.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers });
}

/**
 * A `fetch` for callbacks that checks the address it actually connects to, so that a DNS answer
 * changing between the URL check and the connection (DNS rebinding) cannot reach a private or
 * loopback address. Built on `node:http`/`node:https`: the URL must pass `checkCallbackUrl`
 * with the same `urlPolicy`, the host name is resolved once with `resolveHost`, and the request
 * connects only when every address is allowed (public, or loopback under
 * `allowInsecureLoopback`; any for `allowHosts`). Redirects are never followed — a `3xx` is
 * returned as is (with `redirect: 'error'` it rejects); every request has its own connection,
 * never shared with another host. `signal` aborts the request and the response body.
 * Rejects like `fetch` (`TypeError`, the reason in `cause`) or with the signal's reason.
 *
 * @example
 * import { createGateway } from '@svc/gateway-kit';
 * import { createPinnedFetch, resolveHostWithNodeDns } from '@svc/gateway-kit/node';
 * const urlPolicy = { allowHosts: ['hooks.corp.internal'] };
 * const gateway = createGateway({
 *   gateway: { id: 'acme', name: 'Acme' },
 *   actions,
 *   auth: { tokens: [process.env.GATEWAY_TOKEN!] },
 *   callbacks: { urlPolicy, resolveHost: resolveHostWithNodeDns, fetch: createPinnedFetch({ urlPolicy }) },
 * });
 */
export function createPinnedFetch(options: PinnedFetchOptions = {}): typeof fetch {
  const policy = options.urlPolicy;
  const resolveHost = options.resolveHost ?? resolveHostWithNodeDns;
  return async (input, init) => {
    const request = new Request(input, init);
    const { signal } = request;
    signal.throwIfAborted();
    const url = new URL(request.url);
    const check = checkCallbackUrl(url, policy);
    if (!check.ok) {
      throw networkError(
        refusal('ERR_CALLBACK_URL_REFUSED', `The callback URL is refused (${check.reason}).`),
      );
    }
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    signal.throwIfAborted();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // As fetch does: a length always, never chunked (an empty POST is `content-length: 0`).
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    else if (request.method !== 'GET' && request.method !== 'HEAD') headers['content-length'] = '0';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const requestOptions: RequestOptions = {
      protocol: url.protocol,
      hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      // A fresh agent per request: no pooled socket is ever reused for another host.
      agent: false,
      lookup: pinnedLookup(resolveHost, policy, isAllowedHost(url.hostname, policy)),
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(requestOptions);
      let settled = false;
      const settle = (outcome: () => void): void => {
        signal.removeEventListener('abort', onAbort);
        if (settled) return;
        settled = true;
        outcome();
      };
      const onAbort = (): void => {
        req.destroy(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // Kept after the answer too: a late socket error must not become an uncaught exception.
      req.on('error', (error) =>
        settle(() => reject(signal.aborted ? signal.reason : networkError(error))),
      );
      req.once('response', (res) =>
        settle(() => {
          const status = res.statusCode ?? 0;
          if (request.redirect === 'error' && status >= 300 && status < 400) {
            res.destroy();
            reject(networkError(refusal('ERR_REDIRECT', 'The response is a redirect.')));
            return;
          }
          try {
            resolve(toResponse(res, request.method, signal));
          } catch (error) {
            res.destroy();
            reject(networkError(error));
          }
        }),
      );
      req.end(body);
    });
  };
}
