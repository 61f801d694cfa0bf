import { createDemoGateway, type DemoGateway } from '@svc/example-demo-actions';
import { resolveHostWithNodeDns } from '@svc/gateway-kit/node';

// One gateway per server process: its in-memory job store, approvals and idempotency records live
// in this process (see docs/examples.md, "Next.js"). Created on the first request, from the
// environment `next start` runs with (not the build's), and kept on globalThis so that `next dev`
// reloading this module does not start a second one.
const holder = globalThis as typeof globalThis & { demoGateway?: DemoGateway };

/** The demo gateway, mounted at /gateway (app/gateway/[[...path]]/route.ts). */
export function demoGateway(): DemoGateway['gateway'] {
  holder.demoGateway ??= createDemoGateway(process.env, {
    // The route handler gets the whole path (/gateway/v1/...): basePath makes the gateway route
    // it and put /gateway into every URL it answers.
    basePath: '/gateway',
    resolveHost: resolveHostWithNodeDns,
    // On a loopback HOST (the default), only requests addressed to a loopback name: DNS rebinding.
    loopbackOnly: true,
  });
  return holder.demoGateway.gateway;
}

// A host name or IP literal with an optional port; anything else in Host is not used for URLs.
const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/;

/**
 * The request as addressed by the caller. `next start` builds `request.url` from the host name it
 * was started with (`localhost`), not from the request's `Host` header, and the gateway takes the
 * URLs it answers (manifest, `statusUrl`, `cancelUrl`) from `request.url` when no `GATEWAY_URL`
 * is set: so the URL is rebuilt with the `Host` header, as the Node adapter does. Behind a proxy
 * that terminates TLS or rewrites the host, set `GATEWAY_URL` instead.
 */
export function asAddressed(request: Request): Request {
  const host = request.headers.get('host');
  const url = new URL(request.url);
  if (host === null || !HOST.test(host) || url.host === host) return request;
  url.host = host;
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    // A streamed body (Node's fetch requires it said).
    ...(request.body ? { duplex: 'half' } : {}),
  } as RequestInit);
}
