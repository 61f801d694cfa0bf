/**
 * The package's one bounded body reader. Returns `response` with a body that errors with
 * `tooLarge` once more than `limit` bytes have arrived; a `Content-Length` above the limit throws
 * it at once, before anything is read. The client uses it on responses, the emulator on requests
 * (through `new Response(request.body)`).
 *
 * @example
 * const text = await limitBody(response, 1_024, new WorkspaceResponseTooLargeError('GET /skills', 1_024)).text();
 */
export function limitBody(response: Response, limit: number, tooLarge: Error): Response {
  const { body } = response;
  if (body === null) return response;
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
