/** A JSON response. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** An error in the emulator's envelope: `{ error: { code, message, details? } }`. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  details?: Record<string, unknown>,
): Response {
  const error = details === undefined ? { code, message } : { code, message, details };
  return jsonResponse(status, { error }, headers);
}
