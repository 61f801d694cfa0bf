import { describe, expect, it } from 'vitest';
import { ChunkedBody, MAX_CHUNK_EXTENSION_BYTES, MAX_TRAILER_BYTES } from './chunked-body.ts';

// Test bodies are written as latin1 strings: one character, one byte.
const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

interface Decoded {
  /** The body bytes handed to `onData`, as latin1. */
  readonly body: string;
  /** The offset `decode` returned last. */
  readonly end: number;
  readonly done: boolean;
}

/** Decodes `text` in one call from `from`; the refusal, or what came out. */
function decode(text: string, from = 0) {
  const decoder = new ChunkedBody();
  const out: Buffer[] = [];
  const end = decoder.decode(bytes(text), from, (data) => out.push(Buffer.from(data)));
  if (typeof end !== 'number') return end;
  return { body: Buffer.concat(out).toString('latin1'), end, done: decoder.done };
}

/** The decoded body of `text`, failing the test unless it is whole and accepted. */
function decoded(text: string): Decoded {
  const result = decode(text);
  if ('code' in result) throw new Error(`expected a body, got ${JSON.stringify(result)}`);
  expect(result.done).toBe(true);
  return result;
}

/**
 * Decodes `text` as it would arrive in `pieces` (each a separate buffer, as a server that drops
 * consumed bytes holds them): the refusal, or what came out and where it stopped in the last piece.
 */
function decodeInPieces(pieces: readonly string[]) {
  const decoder = new ChunkedBody();
  const out: Buffer[] = [];
  let end = 0;
  for (const piece of pieces) {
    const read = decoder.decode(bytes(piece), 0, (data) => out.push(Buffer.from(data)));
    if (typeof read !== 'number') return read;
    end = read;
    if (decoder.done) break;
    // A streaming decoder takes every byte it is given until it is done.
    expect(read).toBe(piece.length);
  }
  return { body: Buffer.concat(out).toString('latin1'), end, done: decoder.done };
}

/** `text` a byte at a time. */
const byteByByte = (text: string) => decodeInPieces([...text]);

describe('ChunkedBody: well-formed bodies', () => {
  it('decodes chunk sizes in lower- and upper-case hex', () => {
    const a = 'x'.repeat(10);
    const b = 'y'.repeat(31);
    const c = 'z'.repeat(255);
    const text = `a\r\n${a}\r\n1F\r\n${b}\r\nfF\r\n${c}\r\n0\r\n\r\n`;
    expect(decoded(text)).toEqual({ body: a + b + c, end: text.length, done: true });
  });

  it('decodes zero-padded sizes up to 12 hex digits', () => {
    expect(decoded('000000000005\r\nhello\r\n000\r\n\r\n').body).toBe('hello');
  });

  it('decodes an empty body', () => {
    expect(decoded('0\r\n\r\n')).toEqual({ body: '', end: 5, done: true });
  });

  it('drops chunk extensions: names, tokens and quoted strings', () => {
    const text =
      '5;a\r\nhello\r\n' +
      '1;a=b;c=d\r\n,\r\n' +
      '6;q="x y\\"z;\xe9\t"\r\n world\r\n' +
      "0;last=!#$%&'*+-.^_`|~\r\n\r\n";
    expect(decoded(text).body).toBe('hello, world');
  });

  it('drops trailer fields', () => {
    const text =
      '5\r\nhello\r\n0\r\nX-Checksum: abc\r\nX-Empty:\r\nX-Tab:\ta\tb\r\nHost: x\r\n\r\n';
    expect(decoded(text)).toEqual({ body: 'hello', end: text.length, done: true });
  });

  it('stops after the body: the next request is left where it is, and done stays done', () => {
    const body = '5\r\nhello\r\n0\r\n\r\n';
    const next = 'GET /next HTTP/1.1\r\n\r\n';
    const decoder = new ChunkedBody();
    const out: string[] = [];
    const buffer = bytes(body + next);
    const end = decoder.decode(buffer, 0, (data) => out.push(data.toString()));
    expect(end).toBe(body.length);
    expect(decoder.done).toBe(true);
    // Called again from there, it reads nothing more.
    const again = decoder.decode(buffer, body.length, (data) => out.push(data.toString()));
    expect(again).toBe(body.length);
    expect(out.join('')).toBe('hello');
  });

  it('starts where it is told to in the buffer', () => {
    const head = 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n';
    const text = `${head}3\r\nabc\r\n0\r\n\r\n`;
    expect(decode(text, head.length)).toEqual({ body: 'abc', end: text.length, done: true });
  });

  it('is not done while the body is incomplete, and hands over the data it has', () => {
    expect(decode('5\r\nhel')).toEqual({ body: 'hel', end: 6, done: false });
    expect(decode('5\r\nhello\r\n0\r\n')).toEqual({ body: 'hello', end: 13, done: false });
    expect(decode('5\r\nhello\r\n0\r\nX: 1\r\n')).toEqual({ body: 'hello', end: 19, done: false });
  });
});

describe('ChunkedBody: a body that arrives in pieces', () => {
  const text =
    '4;a=b\r\nWiki\r\n' +
    '9;n="q\\"uoted"\r\npedia in \r\n' +
    '0E\r\nchunks.\r\n\r\n\x00\xff!\r\n' +
    '0\r\nX-T: 1\r\nX-U: 2\r\n\r\n';
  const body = 'Wikipedia in chunks.\r\n\r\n\x00\xff!';

  it('gives the same body and end when cut in two at any byte', () => {
    expect(decoded(text).body).toBe(body);
    for (let cut = 0; cut < text.length; cut++) {
      const result = decodeInPieces([text.slice(0, cut), text.slice(cut)]);
      expect(result, `cut at ${cut}`).toEqual({ body, end: text.length - cut, done: true });
    }
  });

  it('gives the same body when it arrives a byte at a time', () => {
    expect(byteByByte(text)).toEqual({ body, end: 1, done: true });
  });

  it('reads on from the offset it returned, in a buffer that grows', () => {
    // As a server that appends each arrival to what it holds.
    for (let cut = 0; cut <= text.length; cut++) {
      const decoder = new ChunkedBody();
      const out: Buffer[] = [];
      const onData = (data: Buffer) => out.push(Buffer.from(data));
      const first = decoder.decode(bytes(text.slice(0, cut)), 0, onData);
      expect(first).toBe(cut);
      expect(decoder.decode(bytes(text), first as number, onData)).toBe(text.length);
      expect(decoder.done).toBe(true);
      expect(Buffer.concat(out).toString('latin1'), `cut at ${cut}`).toBe(body);
    }
  });
});

// Each of these is refused as malformed, whole and a byte at a time.
const HOSTILE_BODIES: readonly [string, string][] = [
  ['a missing chunk size', '\r\nhello\r\n0\r\n\r\n'],
  ['an extension without a size', ';a\r\nhello\r\n0\r\n\r\n'],
  ['a size that is not hex', 'g\r\nhello\r\n0\r\n\r\n'],
  ['a size with trailing garbage', '5x\r\nhello\r\n0\r\n\r\n'],
  ['a size written 0x5', '0x5\r\nhello\r\n0\r\n\r\n'],
  ['a signed size', '+5\r\nhello\r\n0\r\n\r\n'],
  ['a size of 13 hex digits', '0000000000005\r\nhello\r\n0\r\n\r\n'],
  ['a size too large to hold', 'fffffffffffff\r\nhello\r\n0\r\n\r\n'],
  ['a space before a size', ' 5\r\nhello\r\n0\r\n\r\n'],
  ['a space after a size', '5 \r\nhello\r\n0\r\n\r\n'],
  ['a space between a size and its extension', '5 ;a\r\nhello\r\n0\r\n\r\n'],
  ['a tab between a size and its extension', '5\t;a\r\nhello\r\n0\r\n\r\n'],
  ['a second number after a size', '5 6\r\nhello\r\n0\r\n\r\n'],
  ['data longer than its size', '5\r\nhelloX\r\n0\r\n\r\n'],
  ['data with no CR LF after it', '5\r\nhello0\r\n\r\n'],
  ['data with only LF after it', '5\r\nhello\n0\r\n\r\n'],
  ['a size line ended by LF only', '5\nhello\r\n0\r\n\r\n'],
  ['a size line ended by CR only', '5\rhello\r\n0\r\n\r\n'],
  ['a last chunk ended by LF only', '5\r\nhello\r\n0\n\r\n'],
  ['a body framed by LF only', '5\nhello\n0\n\n'],
  ['a trailer section ended by LF only', '5\r\nhello\r\n0\r\n\n'],
  ['a trailer line ended by LF only', '5\r\nhello\r\n0\r\nX: 1\n\r\n'],
  ['a trailer line ended by CR only', '5\r\nhello\r\n0\r\nX: 1\r\r\n'],
  ['a bare LF in an extension', '5;a\nb\r\nhello\r\n0\r\n\r\n'],
  ['a bare CR in an extension', '5;a\rb\r\nhello\r\n0\r\n\r\n'],
  ['a NUL in an extension', '5;a\x00\r\nhello\r\n0\r\n\r\n'],
  ['a control byte in a quoted extension', '5;a="\x01"\r\nhello\r\n0\r\n\r\n'],
  ['an escaped control byte in a quoted extension', '5;a="\\\x01"\r\nhello\r\n0\r\n\r\n'],
  ['a DEL in an extension', '5;a=\x7f\r\nhello\r\n0\r\n\r\n'],
  ['an empty extension', '5;\r\nhello\r\n0\r\n\r\n'],
  ['an extension without a name', '5;=b\r\nhello\r\n0\r\n\r\n'],
  ['an extension with an empty value', '5;a=\r\nhello\r\n0\r\n\r\n'],
  ['a space in an extension', '5;a b\r\nhello\r\n0\r\n\r\n'],
  ['a space before an extension name', '5; a\r\nhello\r\n0\r\n\r\n'],
  ['a space around an extension =', '5;a = b\r\nhello\r\n0\r\n\r\n'],
  ['a non-token extension name', '5;a@b\r\nhello\r\n0\r\n\r\n'],
  ['an extension value with two =', '5;a=b=c\r\nhello\r\n0\r\n\r\n'],
  ['an unterminated quoted extension', '5;a="b\r\nhello\r\n0\r\n\r\n'],
  ['a quoted extension ending in a backslash', '5;a="b\\\r\nhello\r\n0\r\n\r\n'],
  ['bytes after a quoted extension', '5;a="b"c\r\nhello\r\n0\r\n\r\n'],
  ['a NUL in a trailer', '5\r\nhello\r\n0\r\nX: a\x00\r\n\r\n'],
  ['a control byte in a trailer', '5\r\nhello\r\n0\r\nX: \x1b[2J\r\n\r\n'],
  ['a DEL in a trailer', '5\r\nhello\r\n0\r\nX: a\x7f\r\n\r\n'],
  ['a trailer line without a colon', '5\r\nhello\r\n0\r\ngarbage\r\n\r\n'],
  ['a folded trailer line', '5\r\nhello\r\n0\r\nX: 1\r\n 2\r\n\r\n'],
  ['a space before a trailer colon', '5\r\nhello\r\n0\r\nX : 1\r\n\r\n'],
  ['an empty trailer name', '5\r\nhello\r\n0\r\n: 1\r\n\r\n'],
  ['a non-token trailer name', '5\r\nhello\r\n0\r\nX(Y): 1\r\n\r\n'],
  ['a Content-Length trailer', '5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n'],
  ['a Transfer-Encoding trailer', '5\r\nhello\r\n0\r\ntransfer-ENCODING: gzip\r\n\r\n'],
];

describe('ChunkedBody: hostile bodies', () => {
  it.each(HOSTILE_BODIES)('refuses %s', (_, text) => {
    expect(decode(text)).toMatchObject({ code: 'malformed_request' });
    expect(byteByByte(text)).toMatchObject({ code: 'malformed_request' });
  });

  it('hands over no byte of a chunk whose size line is refused', () => {
    const out: Buffer[] = [];
    new ChunkedBody().decode(bytes('5 ;a\r\nhello\r\n0\r\n\r\n'), 0, (data) => out.push(data));
    expect(out).toEqual([]);
  });
});

describe('ChunkedBody: limits', () => {
  /** A body of one-byte chunks whose extensions add up to `total` bytes. */
  function withExtensions(total: number): string {
    // `;` + name per chunk: two chunks of about half each.
    const first = Math.floor(total / 2);
    const ext = (size: number) => `;${'e'.repeat(size - 1)}`;
    return `1${ext(first)}\r\na\r\n1${ext(total - first)}\r\nb\r\n0\r\n\r\n`;
  }

  it(`takes chunk extensions of ${MAX_CHUNK_EXTENSION_BYTES} bytes in all, and refuses one more with 413`, () => {
    expect(decoded(withExtensions(MAX_CHUNK_EXTENSION_BYTES)).body).toBe('ab');
    expect(decode(withExtensions(MAX_CHUNK_EXTENSION_BYTES + 1))).toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('refuses endless extensions before their line ends', () => {
    const endless = `1;${'e'.repeat(MAX_CHUNK_EXTENSION_BYTES * 2)}`;
    expect(decode(endless)).toMatchObject({ code: 'payload_too_large' });
  });

  /** A body whose trailer lines (CR LF aside) add up to `total` bytes. */
  function withTrailers(total: number): string {
    const first = Math.floor(total / 2);
    const field = (size: number) => `X:${'v'.repeat(size - 2)}`;
    return `5\r\nhello\r\n0\r\n${field(first)}\r\n${field(total - first)}\r\n\r\n`;
  }

  it(`takes trailers of ${MAX_TRAILER_BYTES} bytes, and refuses one more with 431`, () => {
    expect(decoded(withTrailers(MAX_TRAILER_BYTES)).body).toBe('hello');
    expect(decode(withTrailers(MAX_TRAILER_BYTES + 1))).toMatchObject({
      code: 'headers_too_large',
    });
  });

  it('refuses an endless trailer before its line ends', () => {
    const endless = `0\r\nX: ${'v'.repeat(MAX_TRAILER_BYTES * 2)}`;
    expect(decode(endless)).toMatchObject({ code: 'headers_too_large' });
  });
});
