import type { Gateway } from '@svc/gateway-kit';

/** Who a tool call acts for: the headers (bearer token included) it forwards to the gateway. */
export interface Caller {
  /** Origin the gateway sees on the forwarded requests (its links are built from it). */
  readonly origin: string;
  /** Headers of the MCP request that carry the caller's identity, `Authorization` first of all. */
  readonly headers: Headers;
}

/** What the gateway answered: the status, the parsed JSON body (or `undefined`) and the headers. */
export interface GatewayAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

/** The gateway's answer to a body that nests too deeply (`400 malformed_json`). */
const TOO_DEEP = {
  error: {
    code: 'malformed_json',
    message: 'The request body nests too deeply.',
    retryable: false,
  },
};

/**
 * Sends one contract request through `gateway.fetch`, as the caller, and reads the JSON answer:
 * the gateway applies the same authentication, validation, limits, quotas and hooks as to any
 * client of the contract. A body too deep to serialize is answered `400 malformed_json` here, as
 * the gateway answers any body deeper than 64 levels.
 */
export async function gatewayRequest(
  gateway: Gateway,
  caller: Caller,
  path: string,
  init: { readonly method: 'GET' | 'POST'; readonly body?: unknown; readonly signal?: AbortSignal },
): Promise<GatewayAnswer> {
  const headers = new Headers(caller.headers);
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  let sent: string | undefined;
  try {
    sent = init.body === undefined ? undefined : JSON.stringify(init.body);
  } catch {
    // Arguments nested deeper than the stack (`JSON.stringify` throws a RangeError): the gateway
    // refuses far shallower bodies (64 levels), so answer as it does, without sending anything.
    return { status: 400, body: TOO_DEEP, headers: new Headers() };
  }
  const response = await gateway.fetch(
    new Request(new URL(path, caller.origin), {
      method: init.method,
      headers,
      ...(sent !== undefined ? { body: sent } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    }),
  );
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, headers: response.headers };
}

/**
 * Request headers that describe the MCP exchange itself (or make a request conditional), not the
 * caller: never forwarded.
 */
const NOT_FORWARDED = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'keep-alive',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'range',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The headers of an MCP request to forward to the gateway: everything that may identify the caller
 * (`Authorization`, and what an `auth.verify` or a hook may read), without the headers of the MCP
 * exchange itself.
 */
export function forwardedHeaders(
  source: Headers | Readonly<Record<string, string | readonly string[] | undefined>>,
): Headers {
  const headers = new Headers();
  const entries =
    source instanceof Headers
      ? [...source.entries()]
      : Object.entries(source).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, typeof value === 'string' ? value : value.join(', ')]],
        );
  for (const [name, value] of entries) {
    if (name && value !== undefined && !NOT_FORWARDED.has(name.toLowerCase())) {
      headers.set(name, value as string);
    }
  }
  return headers;
}
