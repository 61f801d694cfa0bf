// The head of an HTTP/1.1 request (RFC 9112 §2-§7), read strictly: `serve()` is the last hop, so
// whatever a proxy in front of it and this reader could frame differently (a request smuggled
// inside another) is refused with a 400 instead of guessed at.

/** Bytes of a request line and header section, as Node's default `maxHeaderSize`. */
export const MAX_HEAD_BYTES: number = 16 * 1024;

/** What a request's head says, once it has been read whole. */
export interface RequestHead {
  readonly method: string;
  /** The request target as sent (origin-form, or absolute-form, `*` or authority-form). */
  readonly target: string;
  /** `1` for HTTP/1.1, `0` for HTTP/1.0. */
  readonly minorVersion: 0 | 1;
  /** Lower-cased header names, in the order sent (repeated names repeated). */
  readonly names: readonly string[];
  /** The value of each name, without leading or trailing spaces and tabs. */
  readonly values: readonly string[];
  /** Declared body length: `0` without `Content-Length` (or with `Transfer-Encoding`). */
  readonly contentLength: number;
  /** Whether the body is sent `Transfer-Encoding: chunked`. */
  readonly chunked: boolean;
  /** Whether the connection may carry another request after this one's answer. */
  readonly keepAlive: boolean;
  /** Whether the client waits for `100 Continue` before it sends the body. */
  readonly expectContinue: boolean;
}

/** Why a head was refused: the catalogue code of the answer, and what was wrong (for tests). */
export interface HeadRefusal {
  readonly code: 'malformed_request' | 'headers_too_large';
  readonly reason: string;
}

/** A head read whole, and where its body starts in the buffer. */
export interface ReadHead {
  readonly head: RequestHead;
  readonly bodyStart: number;
}

const CRLF_CRLF = /* @__PURE__ */ Buffer.from('\r\n\r\n');
// tchar (RFC 9110 §5.6.2), the request line (§3), and the bytes a header section may hold:
// tab, visible ASCII, space, obs-text, and CR LF only as a pair.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([!-~]+) HTTP\/1\.([01])$/;
const FORBIDDEN_BYTE = /[^\t\r\n\x20-\x7e\x80-\xff]|\r(?!\n)|(?<!\r)\n/;
const DIGITS = /^\d{1,15}$/;
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const AUTHORITY_FORM = /^[^/?#@]+:\d{1,5}$/;

const refused = (reason: string): HeadRefusal => ({ code: 'malformed_request', reason });
const TOO_LARGE: HeadRefusal = { code: 'headers_too_large', reason: 'head over 16 KiB' };

/** `value` without the spaces and tabs (only those: RFC 9110 §5.5) at either end. */
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9))
    end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** Whether a comma-separated header value lists `token` (compared without case). */
function lists(value: string, token: string): boolean {
  for (const member of value.split(',')) if (trimOws(member).toLowerCase() === token) return true;
  return false;
}

/**
 * Reads the request head that starts at `from` in `buffer`: `undefined` while it is incomplete,
 * (`searchFrom`: where to look for its end, after the bytes already searched when more arrive),
 * a {@link HeadRefusal} for one that is not a well-framed HTTP/1.1 (or 1.0) request, else the head
 * and where its body starts. Empty lines before the request line are skipped (RFC 9112 §2.2).
 *
 * Refused, where a lenient reader would guess: bare CR or LF, control bytes, folded header lines,
 * a space before a header's colon, a name that is not a token, a repeated or non-decimal
 * `Content-Length`, `Transfer-Encoding` with `Content-Length`, on HTTP/1.0, or other than
 * `chunked` alone, and a repeated `Host`.
 *
 * @example
 * const read = readRequestHead(buffer, 0);
 * if (read !== undefined && !('code' in read)) console.log(read.head.method, read.head.target);
 */
export function readRequestHead(
  buffer: Buffer,
  from: number,
  searchFrom: number = from,
): ReadHead | HeadRefusal | undefined {
  let start = from;
  while (buffer[start] === 13 && buffer[start + 1] === 10) start += 2;
  const end = buffer.indexOf(CRLF_CRLF, Math.max(start, searchFrom));
  // Counted from `from` to the end of the empty line that closes the head, the same bound whole
  // or in part; empty lines before the request line count too (no endless CR LF).
  if (end === -1) {
    if (buffer.length - from > MAX_HEAD_BYTES) return TOO_LARGE;
    // A line ended by LF alone is refused as it arrives, not left waiting for a CR LF CR LF.
    for (let lf = buffer.indexOf(10, Math.max(start, searchFrom)); lf !== -1; ) {
      if (buffer[lf - 1] !== 13) return refused('a line ended by LF alone');
      lf = buffer.indexOf(10, lf + 1);
    }
    return undefined;
  }
  if (end + 4 - from > MAX_HEAD_BYTES) return TOO_LARGE;
  const text = buffer.toString('latin1', start, end);
  if (FORBIDDEN_BYTE.test(text)) return refused('a control byte, or CR and LF apart');
  const lines = text.split('\r\n');
  const line = REQUEST_LINE.exec(lines[0]!);
  if (line === null) return refused('not a request line');
  const method = line[1]!;
  const target = line[2]!;
  // RFC 9112 §3.2: origin-form, absolute-form, `*` for OPTIONS, authority-form for CONNECT.
  if (
    !(target.startsWith('/') || ABSOLUTE_FORM.test(target)) &&
    !(target === '*' && method === 'OPTIONS') &&
    !(method === 'CONNECT' && AUTHORITY_FORM.test(target))
  )
    return refused('a request target of no form');
  const minorVersion = line[3] === '1' ? 1 : 0;

  const names: string[] = [];
  const values: string[] = [];
  let contentLength: string | undefined;
  let transferEncoding: string | undefined;
  let connection: string | undefined;
  let expect: string | undefined;
  let hosts = 0;
  for (let i = 1; i < lines.length; i++) {
    const field = lines[i]!;
    const colon = field.indexOf(':');
    if (colon < 1) return refused('a header line without a name and a colon');
    const sent = field.slice(0, colon);
    if (!TOKEN.test(sent)) return refused('a header name that is not a token');
    const name = sent.toLowerCase();
    const value = trimOws(field.slice(colon + 1));
    names.push(name);
    values.push(value);
    switch (name) {
      case 'content-length':
        if (contentLength !== undefined) return refused('Content-Length repeated');
        if (!DIGITS.test(value)) return refused('Content-Length is not a decimal');
        contentLength = value;
        break;
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
      case 'host':
        if (++hosts > 1) return refused('Host repeated');
        break;
      case 'connection':
        connection = connection === undefined ? value : `${connection}, ${value}`;
        break;
      case 'expect':
        expect = value;
        break;
    }
  }

  let chunked = false;
  if (transferEncoding !== undefined) {
    if (contentLength !== undefined) return refused('Transfer-Encoding with Content-Length');
    if (minorVersion === 0) return refused('Transfer-Encoding on HTTP/1.0');
    if (transferEncoding.toLowerCase() !== 'chunked')
      return refused('Transfer-Encoding other than chunked alone');
    chunked = true;
  }
  // A CONNECT is never a tunnel here (it gets an error answer): its connection is not reused.
  const keepAlive =
    method === 'CONNECT'
      ? false
      : connection === undefined
        ? minorVersion === 1
        : minorVersion === 1
          ? !lists(connection, 'close')
          : lists(connection, 'keep-alive') && !lists(connection, 'close');
  return {
    head: {
      method,
      target,
      minorVersion,
      names,
      values,
      contentLength: contentLength === undefined ? 0 : Number(contentLength),
      chunked,
      keepAlive,
      expectContinue:
        minorVersion === 1 && expect !== undefined && expect.toLowerCase() === '100-continue',
    },
    bodyStart: end + 4,
  };
}
