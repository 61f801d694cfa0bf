/** A contract error envelope (`{ error: { code, message, retryable } }`) with `status`. */
export function envelope(
  status: number,
  code: string,
  message: string,
  retryAfterSeconds?: number,
): Response {
  return new Response(JSON.stringify({ error: { code, message, retryable: status >= 429 } }), {
    status,
    headers: {
      'content-type': 'application/json',
      ...(retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {}),
    },
  });
}

/** A JSON-RPC error without an id, as the MCP transport answers protocol-level refusals. */
export function jsonRpcError(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }),
    { status, headers: { 'content-type': 'application/json' } },
  );
}
