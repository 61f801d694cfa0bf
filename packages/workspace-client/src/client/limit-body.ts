import { WorkspaceResponseTooLargeError } from '../errors/response-too-large-error.js';

/**
 * Returns `response` with a body that errors with `WorkspaceResponseTooLargeError` once more
 * than `limit` bytes have arrived. A `Content-Length` above the limit fails at once, before
 * anything is read.
 */
export function limitBody(response: Response, limit: number, what: string): Response {
  const { body } = response;
  if (body === null) return response;
  const tooLarge = new WorkspaceResponseTooLargeError(what, limit);
  if (Number(response.headers.get('content-length')) > limit) {
    body.cancel().catch(() => {});
    throw tooLarge;
  }
  let received = 0;
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > limit) controller.error(tooLarge);
        else controller.enqueue(chunk);
      },
    }),
  );
  const { status, statusText, headers } = response;
  return new Response(counted, { status, statusText, headers });
}
