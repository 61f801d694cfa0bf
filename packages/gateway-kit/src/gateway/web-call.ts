import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { readWebBody } from '../http/read-web-body.ts';

/** Adapts a Web `Request` to the core's {@link GatewayCall}. */
export function fromWebRequest(
  request: Request,
  waitUntil?: (work: Promise<unknown>) => void,
): GatewayCall {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    header: (name) => request.headers.get(name) ?? undefined,
    readBody: (limit) => readWebBody(request.body, limit),
    signal: request.signal,
    requestBase: url.origin,
    waitUntil,
  };
}

/** Adapts the core's {@link GatewayReply} to a Web `Response`. */
export function toWebResponse(reply: GatewayReply): Response {
  return new Response(reply.body as BodyInit | null, {
    status: reply.status,
    headers: reply.headers,
  });
}
