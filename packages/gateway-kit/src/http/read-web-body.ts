import type { BodyReadResult } from './gateway-call.ts';

/**
 * Reads a Web `ReadableStream` body, counting bytes as they stream so that a chunked body without
 * `Content-Length` cannot exceed `limit`. The stream is cancelled as soon as the limit is passed.
 */
export async function readWebBody(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<BodyReadResult> {
  if (!body) return { kind: 'bytes', bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return { kind: 'too_large' };
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return { kind: 'bytes', bytes: chunks[0]! };
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: 'bytes', bytes };
}
