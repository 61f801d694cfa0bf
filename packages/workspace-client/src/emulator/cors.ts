/**
 * CORS headers added to every emulator answer, so a page served from another localhost port
 * can call it. `Authorization` is not covered by a `*` allow-list, so headers are echoed.
 */
export function corsHeaders(request: Request): Record<string, string> {
  return {
    'access-control-allow-origin': request.headers.get('origin') ?? '*',
    'access-control-expose-headers': 'x-request-id, retry-after, retry-after-ms',
    vary: 'Origin',
  };
}

/** Answers a CORS preflight (`OPTIONS`) with 204. */
export function preflight(request: Request): Response {
  const requested = request.headers.get('access-control-request-headers');
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': requested ?? 'authorization, content-type, accept',
      'access-control-max-age': '600',
    },
  });
}
