import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { fromWebRequest } from './web-call.ts';

const post = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

/**
 * A request as a runtime hands it over with the URL it built: Deno joins the `Host` header and the
 * target as they came (`http://a b/v1/manifest`), Bun gives the bare target when `Host` makes no
 * URL (`/v1/manifest`). Neither can be made with `new Request`, which parses its URL.
 */
const asServed = (url: string, headers: Record<string, string> = {}): Request =>
  ({ url, method: 'GET', headers: new Headers(headers), body: null }) as unknown as Request;

/** A stream body (no Content-Length of its own) sent in `chunks` pieces of `size` bytes. */
function streamOf(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

describe('fromWebRequest', () => {
  it('takes path, query and base from the URL, never the fragment', () => {
    const call = fromWebRequest(new Request('http://example.test:8080/v1/a%20b?x=1&y=2#frag'));
    expect(call.path).toBe('/v1/a%20b');
    expect(call.query).toBeUndefined();
    expect(call.requestBase).toBe('http://example.test:8080');
    const withQuery = fromWebRequest(
      new Request('https://[::1]/v1/approvals?state=pending#f'),
      undefined,
      true,
    );
    expect(withQuery.path).toBe('/v1/approvals');
    expect(withQuery.query).toBe('state=pending');
    expect(withQuery.requestBase).toBe('https://[::1]');
    expect(fromWebRequest(new Request('http://h/p#a?b'), undefined, true).query).toBe('');
    expect(fromWebRequest(new Request('http://h'), undefined, true).path).toBe('/');
  });

  it('keeps its methods on the prototype, not a closure per request', () => {
    // A function stored on each request's call kept finished requests alive until a full GC
    // (docs/benchmarks.md, issue 24).
    const call = fromWebRequest(new Request('http://h/'));
    expect(
      Object.getOwnPropertyNames(call).filter(
        (key) => typeof Reflect.get(call, key) === 'function',
      ),
    ).toEqual([]);
  });

  it('reads headers case-insensitively, undefined when absent', () => {
    const call = fromWebRequest(new Request('http://h/', { headers: { 'X-Trace': 'abc' } }));
    expect(call.header('x-trace')).toBe('abc');
    expect(call.header('authorization')).toBeUndefined();
    expect(call.method).toBe('GET');
  });

  it('reads a body within its declared length', async () => {
    const call = fromWebRequest(post('http://h/', '{"a":1}', { 'content-length': '7' }));
    const body = await call.readBody(16);
    expect(body.kind).toBe('bytes');
    expect(new TextDecoder().decode((body as { bytes: Uint8Array }).bytes)).toBe('{"a":1}');
  });

  it('refuses a body longer than the limit even when its Content-Length claims less', async () => {
    const call = fromWebRequest(post('http://h/', 'x'.repeat(100), { 'content-length': '10' }));
    expect(await call.readBody(16)).toEqual({ kind: 'too_large' });
  });

  it('stops reading a streamed body without Content-Length once it passes the limit', async () => {
    let pulled = 0;
    const source = streamOf(1_000, 1024);
    const counted = source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          pulled += 1;
          controller.enqueue(chunk);
        },
      }),
    );
    const call = fromWebRequest(post('http://h/', counted));
    expect(await call.readBody(4096)).toEqual({ kind: 'too_large' });
    expect(pulled).toBeLessThan(20);
  });

  it('reads a streamed body within the limit whole', async () => {
    const call = fromWebRequest(post('http://h/', streamOf(3, 100)));
    const body = await call.readBody(1024);
    expect((body as { bytes: Uint8Array }).bytes.byteLength).toBe(300);
  });

  it('hands over the signal of the request and the platform waitUntil', () => {
    const controller = new AbortController();
    const waitUntil = (_work: Promise<unknown>): void => {};
    const call = fromWebRequest(new Request('http://h/', { signal: controller.signal }), waitUntil);
    expect(call.waitUntil).toBe(waitUntil);
    controller.abort();
    expect(call.signal?.aborted).toBe(true);
  });

  it('builds no URL from a Host that is not host[:port] (Deno, Bun)', () => {
    for (const url of [
      'http://a b/v1/manifest',
      'http://user:pw@evil.example/v1/manifest',
      'http://[::1/v1/manifest',
      'http://x"y/v1/manifest',
      'http://good.example:99999/v1/manifest',
      'https://a\tb/v1/manifest',
    ]) {
      const call = fromWebRequest(asServed(url));
      expect(call.path, url).toBe('/v1/manifest');
      expect(call.requestBase, url).toBe(
        url.startsWith('https') ? 'https://localhost' : 'http://localhost',
      );
    }
    expect(fromWebRequest(asServed('http://gw.example:65535/v1/manifest')).requestBase).toBe(
      'http://gw.example:65535',
    );
  });

  it('reads a bare target (Bun, when Host makes no URL) without throwing', () => {
    const call = fromWebRequest(asServed('/v1/approvals/apr_1?status=pending#f'), undefined, true);
    expect(call.path).toBe('/v1/approvals/apr_1');
    expect(call.query).toBe('status=pending');
    expect(call.requestBase).toBe('http://localhost');
  });

  it('removes dot segments Deno leaves in the URL, as Node and Bun do', () => {
    expect(fromWebRequest(asServed('http://h/v1/./manifest')).path).toBe('/v1/manifest');
    expect(fromWebRequest(asServed('http://h/v1/jobs/../manifest?x')).path).toBe('/v1/manifest');
    expect(fromWebRequest(asServed('http://h/v1/%2e/manifest')).path).toBe('/v1/manifest');
  });

  it('answers a forged Host through gateway.fetch with the envelope and localhost URLs', async () => {
    // No gateway.url: the URLs in answers are derived from the request.
    const gateway = fixtureGateway({ gateway: { id: 'acme', name: 'Acme back office' } });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const bare = await gateway.fetch(asServed('/v1/manifest', { ...auth, host: 'a b' }));
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { gateway: { url: string } }).gateway.url).toBe(
      'http://localhost',
    );
    const forged = await gateway.fetch(asServed('http://user:pw@b/v1/manifest', auth));
    expect(((await forged.json()) as { gateway: { url: string } }).gateway.url).toBe(
      'http://localhost',
    );
    const refused = await gateway.fetch(asServed('/v1/manifest', { host: 'a b' }));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});
