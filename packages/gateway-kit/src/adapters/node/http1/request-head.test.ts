import { describe, expect, it } from 'vitest';
import {
  type HeadRefusal,
  MAX_HEAD_BYTES,
  type ReadHead,
  type RequestHead,
  readRequestHead,
} from './request-head.ts';

// Test requests are written as latin1 strings: one character, one byte.
const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

const read = (text: string, from = 0) => readRequestHead(bytes(text), from);

/** The head of `text`, failing the test if it is not read whole. */
function accepted(text: string, from = 0): ReadHead {
  const result = read(text, from);
  if (result === undefined || 'code' in result)
    throw new Error(`expected a head, got ${JSON.stringify(result)}`);
  return result;
}

const headOf = (text: string): RequestHead => accepted(text).head;

/** Why `text` is refused, failing the test if it is not. */
function refusal(text: string): HeadRefusal['code'] {
  const result = read(text);
  if (result === undefined || !('code' in result))
    throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result.code;
}

/** A request whose head is exactly `size` bytes long, its empty line included. */
function headOfSize(size: number): string {
  const start = 'GET / HTTP/1.1\r\nX-Pad: ';
  const end = '\r\n\r\n';
  return start + 'a'.repeat(size - start.length - end.length) + end;
}

describe('readRequestHead: well-formed requests', () => {
  it('reads an origin-form request: method, target, version, headers, and where the body starts', () => {
    const text =
      'POST /v1/invoke?x=1 HTTP/1.1\r\nHost: a.example\r\nContent-Length: 5\r\n\r\nhello';
    const { head, bodyStart } = accepted(text);
    expect(head).toEqual({
      method: 'POST',
      target: '/v1/invoke?x=1',
      minorVersion: 1,
      names: ['host', 'content-length'],
      values: ['a.example', '5'],
      contentLength: 5,
      chunked: false,
      keepAlive: true,
      expectContinue: false,
    });
    expect(bytes(text).subarray(bodyStart).toString()).toBe('hello');
  });

  it('keeps an absolute-form or asterisk-form target as sent', () => {
    expect(headOf('GET http://a.example/b?c=d HTTP/1.1\r\n\r\n').target).toBe(
      'http://a.example/b?c=d',
    );
    expect(headOf('OPTIONS * HTTP/1.1\r\n\r\n').target).toBe('*');
  });

  it('reads a request with no header at all', () => {
    const { head, bodyStart } = accepted('GET / HTTP/1.1\r\n\r\n');
    expect(head.names).toEqual([]);
    expect(bodyStart).toBe(18);
  });

  it('skips empty lines before the request line', () => {
    const { head, bodyStart } = accepted('\r\n\r\nGET /x HTTP/1.1\r\n\r\n');
    expect(head.target).toBe('/x');
    expect(bodyStart).toBe(23);
  });

  it('reads a pipelined head from the offset it is given', () => {
    const text = 'POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nhiGET /b HTTP/1.1\r\n\r\n';
    const first = accepted(text);
    const second = accepted(text, first.bodyStart + first.head.contentLength);
    expect(second.head.target).toBe('/b');
    expect(second.bodyStart).toBe(text.length);
  });

  it('keeps an HTTP/1.1 connection open unless the client says close', () => {
    expect(headOf('GET / HTTP/1.1\r\n\r\n').keepAlive).toBe(true);
    expect(headOf('GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n').keepAlive).toBe(true);
    expect(headOf('GET / HTTP/1.1\r\nConnection: close\r\n\r\n').keepAlive).toBe(false);
    expect(headOf('GET / HTTP/1.1\r\nConnection: Upgrade, CLOSE\r\n\r\n').keepAlive).toBe(false);
    // Repeated Connection headers are one list.
    expect(headOf('GET / HTTP/1.1\r\nConnection: te\r\nConnection: close\r\n\r\n').keepAlive).toBe(
      false,
    );
  });

  it('keeps an HTTP/1.0 connection open only when the client asks for keep-alive', () => {
    const http10 = headOf('GET / HTTP/1.0\r\n\r\n');
    expect(http10.minorVersion).toBe(0);
    expect(http10.keepAlive).toBe(false);
    expect(headOf('GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n').keepAlive).toBe(true);
    expect(headOf('GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n').keepAlive).toBe(false);
    expect(headOf('GET / HTTP/1.0\r\nConnection: upgrade\r\n\r\n').keepAlive).toBe(false);
  });

  it('notices Expect: 100-continue on HTTP/1.1 only', () => {
    const post = 'POST / HTTP/1.1\r\nContent-Length: 1\r\n';
    expect(headOf(`${post}Expect: 100-continue\r\n\r\n`).expectContinue).toBe(true);
    expect(headOf(`${post}Expect: 100-Continue\r\n\r\n`).expectContinue).toBe(true);
    expect(headOf(`${post}Expect: something-else\r\n\r\n`).expectContinue).toBe(false);
    expect(headOf(`${post}\r\n`).expectContinue).toBe(false);
    const http10 = 'POST / HTTP/1.0\r\nContent-Length: 1\r\nExpect: 100-continue\r\n\r\n';
    expect(headOf(http10).expectContinue).toBe(false);
  });

  it('keeps repeated headers, in the order sent, with lower-cased names', () => {
    const head = headOf(
      'GET / HTTP/1.1\r\nAccept: a/b\r\nX-Trace: 1\r\nACCEPT: c/d\r\naccept: e/f\r\n\r\n',
    );
    expect(head.names).toEqual(['accept', 'x-trace', 'accept', 'accept']);
    expect(head.values).toEqual(['a/b', '1', 'c/d', 'e/f']);
  });

  it('trims spaces and tabs around a value, and nothing else', () => {
    const head = headOf(
      'GET / HTTP/1.1\r\nX-A: \t a \t b\t \r\nX-B:c\r\nX-C:\r\nX-D: \xa0d\xa0\r\n\r\n',
    );
    // Inner whitespace stays; a no-break space (obs-text) is part of the value.
    expect(head.values).toEqual(['a \t b', 'c', '', '\xa0d\xa0']);
  });

  it('reads a chunked body declaration, whatever the case or spacing of its value', () => {
    for (const value of ['chunked', 'Chunked', '\tCHUNKED ']) {
      const head = headOf(`POST / HTTP/1.1\r\nTransfer-Encoding:${value}\r\n\r\n`);
      expect(head.chunked).toBe(true);
      expect(head.contentLength).toBe(0);
    }
  });

  it('reads a decimal Content-Length, leading zeros and 15 digits included', () => {
    expect(headOf('POST / HTTP/1.1\r\nContent-Length: 007\r\n\r\n').contentLength).toBe(7);
    expect(headOf('POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n').contentLength).toBe(0);
    const big = headOf('POST / HTTP/1.1\r\nContent-Length: 999999999999999\r\n\r\n');
    expect(big.contentLength).toBe(999_999_999_999_999);
    expect(big.chunked).toBe(false);
  });
});

describe('readRequestHead: request targets', () => {
  it.each([
    ['GET', '/v1/manifest?x=1'],
    ['POST', 'http://gateway.example/v1/invoke'],
    ['OPTIONS', '*'],
    ['CONNECT', 'gateway.example:443'],
  ])('reads %s %s', (method, target) => {
    const head = headOf(`${method} ${target} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect([head.method, head.target]).toEqual([method, target]);
  });

  it('never keeps the connection of a CONNECT (it is answered, never tunnelled)', () => {
    expect(headOf('CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n').keepAlive).toBe(false);
  });
});

describe('readRequestHead: a head that arrives in pieces', () => {
  it('reads nothing until the head is whole, then the same head at every split point', () => {
    const text =
      '\r\nPOST /upload?id=7 HTTP/1.1\r\nHost: a.example\r\nX-Empty:\r\n' +
      'Content-Length: 4\r\nConnection: keep-alive\r\n\r\nbody';
    const whole = accepted(text);
    const headEnd = text.indexOf('\r\n\r\n', 2) + 4;
    expect(whole.bodyStart).toBe(headEnd);
    for (let cut = 0; cut <= text.length; cut++) {
      const result = read(text.slice(0, cut));
      if (cut < headEnd) expect(result, `cut at ${cut}`).toBeUndefined();
      else expect(result, `cut at ${cut}`).toEqual(whole);
    }
  });

  it('finds the end of a head cut anywhere when told to search only the last bytes again', () => {
    // As a server does when more bytes arrive: the 3 before them may start the empty line.
    const text = 'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\n\r\n';
    const whole = accepted(text);
    for (let searched = 0; searched < whole.bodyStart; searched++) {
      const result = readRequestHead(bytes(text), 0, Math.max(0, searched - 3));
      expect(result, `searched ${searched}`).toEqual(whole);
    }
  });

  it('refuses a line ended by LF alone as soon as that LF arrives, at every split point', () => {
    const text = 'GET / HTTP/1.1\r\nHost: a\nX-B: b\r\n\r\n';
    const bareLf = text.indexOf('a\n') + 1;
    for (let cut = 0; cut <= bareLf; cut++)
      expect(read(text.slice(0, cut)), `cut at ${cut}`).toBeUndefined();
    for (let cut = bareLf + 1; cut <= text.length; cut++)
      expect(refusal(text.slice(0, cut)), `cut at ${cut}`).toBe('malformed_request');
  });

  it('gives the same answer for a head near the 16 KiB bound, whole or cut short', () => {
    for (let size = MAX_HEAD_BYTES - 2; size <= MAX_HEAD_BYTES + 5; size++) {
      const text = headOfSize(size);
      const whole = read(text);
      // The last bytes are where a bound counted two ways would answer differently.
      for (let cut = size - 64; cut < size; cut++) {
        const result = read(text.slice(0, cut));
        if (result !== undefined) expect(result, `${size} bytes cut at ${cut}`).toEqual(whole);
      }
    }
  });
});

describe('readRequestHead: the 16 KiB bound', () => {
  it(`reads a head of ${MAX_HEAD_BYTES} bytes, and refuses one a byte longer with 431`, () => {
    expect(accepted(headOfSize(MAX_HEAD_BYTES)).bodyStart).toBe(MAX_HEAD_BYTES);
    expect(refusal(headOfSize(MAX_HEAD_BYTES + 1))).toBe('headers_too_large');
  });

  it('refuses a head over the bound without waiting for its end', () => {
    const start = headOfSize(MAX_HEAD_BYTES + 100).slice(0, MAX_HEAD_BYTES + 1);
    expect(refusal(start)).toBe('headers_too_large');
    expect(read(start.slice(0, MAX_HEAD_BYTES))).toBeUndefined();
  });

  it('refuses endless empty lines before a request line', () => {
    const crlf = '\r\n'.repeat(MAX_HEAD_BYTES / 2 + 1);
    expect(refusal(crlf)).toBe('headers_too_large');
    expect(refusal(`${crlf}GET / HTTP/1.1\r\n\r\n`)).toBe('headers_too_large');
  });

  it('counts the bound from where the head starts, not from the start of the buffer', () => {
    const first = headOfSize(10_000);
    const second = headOfSize(10_000);
    expect(accepted(first + second, first.length).bodyStart).toBe(20_000);
  });
});

// Each of these is refused as malformed, whatever a lenient parser would make of it.
const HOSTILE_HEADS: readonly [string, string][] = [
  ['a target that is no path', 'GET a HTTP/1.1\r\nHost: a\r\n\r\n'],
  ['a target that is only a query', 'GET ?x HTTP/1.1\r\nHost: a\r\n\r\n'],
  ['an authority-form target outside CONNECT', 'GET a:80 HTTP/1.1\r\nHost: a\r\n\r\n'],
  ['`*` outside OPTIONS', 'GET * HTTP/1.1\r\nHost: a\r\n\r\n'],
  ['a bare LF ending a header line', 'GET / HTTP/1.1\r\nHost: a\nX-B: b\r\n\r\n'],
  ['a bare LF ending the request line', 'GET / HTTP/1.1\nHost: a\r\n\r\n'],
  ['a bare CR inside a value', 'GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n'],
  ['a bare CR ending a header line', 'GET / HTTP/1.1\r\nX-A: a\r\r\n\r\n'],
  ['a bare CR ending the request line', 'GET / HTTP/1.1\rX-A: a\r\n\r\n'],
  ['a NUL in a value', 'GET / HTTP/1.1\r\nX-A: a\x00b\r\n\r\n'],
  ['a NUL in a name', 'GET / HTTP/1.1\r\nX-\x00A: a\r\n\r\n'],
  ['a NUL in the target', 'GET /\x00 HTTP/1.1\r\n\r\n'],
  ['a \\x01 in a value', 'GET / HTTP/1.1\r\nX-A: \x01\r\n\r\n'],
  ['a \\x1f in a value', 'GET / HTTP/1.1\r\nX-A: a\x1f\r\n\r\n'],
  ['a DEL in a value', 'GET / HTTP/1.1\r\nX-A: a\x7f\r\n\r\n'],
  ['a vertical tab around a value', 'GET / HTTP/1.1\r\nX-A:\x0ba\r\n\r\n'],
  ['a form feed around a value', 'GET / HTTP/1.1\r\nX-A: a\x0c\r\n\r\n'],
  ['a folded header line (space)', 'GET / HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n'],
  ['a folded header line (tab)', 'GET / HTTP/1.1\r\nX-A: a\r\n\tb\r\n\r\n'],
  ['a folded first header line', 'GET / HTTP/1.1\r\n X-A: a\r\n\r\n'],
  ['a space before the colon', 'GET / HTTP/1.1\r\nHost : a\r\n\r\n'],
  ['a tab before the colon', 'GET / HTTP/1.1\r\nHost\t: a\r\n\r\n'],
  ['an empty header name', 'GET / HTTP/1.1\r\n: a\r\n\r\n'],
  ['a header line without a colon', 'GET / HTTP/1.1\r\nHost a\r\n\r\n'],
  ['a name with a space', 'GET / HTTP/1.1\r\nX A: a\r\n\r\n'],
  ['a name with a parenthesis', 'GET / HTTP/1.1\r\nX(A): a\r\n\r\n'],
  ['a name with a quote', 'GET / HTTP/1.1\r\nX"A: a\r\n\r\n'],
  ['a name with a slash', 'GET / HTTP/1.1\r\nX/A: a\r\n\r\n'],
  ['a name with non-ASCII', 'GET / HTTP/1.1\r\nX-\xe9: a\r\n\r\n'],
  [
    'Content-Length twice, equal',
    'POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n',
  ],
  [
    'Content-Length twice, unequal',
    'POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n',
  ],
  ['Content-Length as a list', 'POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n'],
  ['Content-Length: +5', 'POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n'],
  ['Content-Length: -1', 'POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n'],
  ['Content-Length: 5 5', 'POST / HTTP/1.1\r\nContent-Length: 5 5\r\n\r\n'],
  ['Content-Length: 0x5', 'POST / HTTP/1.1\r\nContent-Length: 0x5\r\n\r\n'],
  ['Content-Length: 5.0', 'POST / HTTP/1.1\r\nContent-Length: 5.0\r\n\r\n'],
  ['Content-Length: 1e3', 'POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n'],
  ['an empty Content-Length', 'POST / HTTP/1.1\r\nContent-Length:\r\n\r\n'],
  ['a 16-digit Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 1000000000000000\r\n\r\n'],
  [
    'a 16-digit Content-Length, zero-padded',
    'POST / HTTP/1.1\r\nContent-Length: 0000000000000005\r\n\r\n',
  ],
  [
    'Content-Length then Transfer-Encoding',
    'POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
  ],
  [
    'Transfer-Encoding then Content-Length',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n',
  ],
  ['Transfer-Encoding on HTTP/1.0', 'POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n'],
  [
    'Transfer-Encoding: chunked, chunked',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n',
  ],
  [
    'Transfer-Encoding: chunked twice',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n',
  ],
  [
    'Transfer-Encoding: gzip, chunked',
    'POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n',
  ],
  [
    'Transfer-Encoding: chunked then x',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n',
  ],
  ['Transfer-Encoding: xchunked', 'POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n'],
  ['Transfer-Encoding: chunked;q=1', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked;q=1\r\n\r\n'],
  ['Transfer-Encoding: identity', 'POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n'],
  ['an empty Transfer-Encoding', 'POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n'],
  ['Host twice', 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'],
  ['Host twice, equal, other case', 'GET / HTTP/1.1\r\nHost: a\r\nHOST: a\r\n\r\n'],
  ['HTTP/2.0', 'GET / HTTP/2.0\r\n\r\n'],
  ['HTTP/1.2', 'GET / HTTP/1.2\r\n\r\n'],
  ['HTTP/1.10', 'GET / HTTP/1.10\r\n\r\n'],
  ['HTTP/0.9 without a version', 'GET /\r\n\r\n'],
  ['a lowercase http/1.1', 'GET / http/1.1\r\n\r\n'],
  ['two spaces after the method', 'GET  / HTTP/1.1\r\n\r\n'],
  ['two spaces before the version', 'GET /  HTTP/1.1\r\n\r\n'],
  ['a tab in the request line', 'GET\t/ HTTP/1.1\r\n\r\n'],
  ['a space ending the request line', 'GET / HTTP/1.1 \r\n\r\n'],
  ['a space before the method', ' GET / HTTP/1.1\r\n\r\n'],
  ['a method that is not a token', 'G(T / HTTP/1.1\r\n\r\n'],
  ['a target with a latin1 byte', 'GET /caf\xe9 HTTP/1.1\r\n\r\n'],
  ['a target with UTF-8 bytes', 'GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n'],
];

describe('readRequestHead: hostile heads', () => {
  it.each(HOSTILE_HEADS)('refuses %s', (_, text) => {
    expect(refusal(text)).toBe('malformed_request');
  });

  it('reads the well-formed twin of each kind of hostile head', () => {
    // So the refusals above are for the flaw, not for the rest of the request.
    expect(headOf('GET / HTTP/1.1\r\nHost: a\r\nX-B: b\r\n\r\n').values).toEqual(['a', 'b']);
    expect(headOf('POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n').contentLength).toBe(5);
    expect(headOf('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n').chunked).toBe(true);
    expect(headOf('GET /caf%C3%A9 HTTP/1.1\r\n\r\n').target).toBe('/caf%C3%A9');
  });
});
