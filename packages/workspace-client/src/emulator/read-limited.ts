import { limitBody } from '../client/limit-body.ts';

/** Thrown by `readLimited` when a body passes its byte limit. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/**
 * Reads a request body as text, refusing more than `limit` bytes: a `Content-Length` above it
 * fails before reading, a streamed body fails as soon as it passes it (the rest is not read).
 */
export function readLimited(request: Request, limit: number): Promise<string> {
  const whole = new Response(request.body, { headers: request.headers });
  return limitBody(whole, limit, new BodyTooLargeError()).text();
}
