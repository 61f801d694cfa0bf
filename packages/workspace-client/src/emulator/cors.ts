/** Which browser origins may call the emulator: a list (exact strings or patterns) or a test. */
export type OriginPolicy = readonly (string | RegExp)[] | ((origin: string) => boolean);

/**
 * Pages served from this machine: `http(s)://localhost`, `127.0.0.1` or `[::1]`, any port.
 * The emulator's default `allowedOrigins`.
 *
 * @example
 * ```ts
 * createWorkspaceEmulator({ allowedOrigins: [...LOCAL_ORIGINS, 'https://app.example'] });
 * ```
 */
export const LOCAL_ORIGINS: readonly RegExp[] = /* @__PURE__ */ Object.freeze([
  /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/,
]);

/** True when a request carrying `Origin: origin` may be answered. */
export function originAllowed(origin: string, policy: OriginPolicy): boolean {
  if (typeof policy === 'function') return policy(origin) === true;
  return policy.some((entry) =>
    typeof entry === 'string' ? entry === origin : entry.test(origin),
  );
}

/**
 * CORS headers added to every answer to an allowed origin (the origin is echoed, since
 * `Authorization` is not covered by a `*` allow-list). A request without `Origin` is not a
 * cross-origin browser call: it gets `*`.
 */
export function corsHeaders(origin: string | null): Record<string, string> {
  return {
    'access-control-allow-origin': origin ?? '*',
    'access-control-expose-headers': 'x-request-id, retry-after, retry-after-ms',
    vary: 'Origin',
  };
}

/** Answers a CORS preflight (`OPTIONS`) of an allowed origin with 204. */
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
