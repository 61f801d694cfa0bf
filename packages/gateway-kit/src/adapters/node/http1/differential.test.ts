// Our reader against Node's own parser (llhttp), on the same raw bytes. Whatever we accept, Node
// must read the same way: same method, target and body bytes, and the same next request. Where
// Node accepts and we refuse, we are stricter on purpose; those cases are listed below.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkedBody } from './chunked-body.ts';
import { readRequestHead } from './request-head.ts';

/** One request as a server sees it; the body as latin1, one character a byte. */
interface Seen {
  readonly method: string;
  readonly target: string;
  readonly body: string;
}

/** What a parser made of a stream of bytes: its whole requests, and whether it took them all. */
interface Reading {
  readonly requests: Seen[];
  readonly acceptedAll: boolean;
}

/** Our reader on `raw`: heads, then bodies framed by Content-Length or chunked. */
function ourReading(raw: Buffer): Reading {
  const requests: Seen[] = [];
  let at = 0;
  while (at < raw.length) {
    const read = readRequestHead(raw, at);
    if (read === undefined || 'code' in read) return { requests, acceptedAll: false };
    const { head, bodyStart } = read;
    let body: Buffer;
    if (head.chunked) {
      const decoder = new ChunkedBody();
      const pieces: Buffer[] = [];
      const end = decoder.decode(raw, bodyStart, (bytes) => pieces.push(Buffer.from(bytes)));
      if (typeof end !== 'number' || !decoder.done) return { requests, acceptedAll: false };
      body = Buffer.concat(pieces);
      at = end;
    } else {
      at = bodyStart + head.contentLength;
      if (at > raw.length) return { requests, acceptedAll: false };
      body = raw.subarray(bodyStart, at);
    }
    requests.push({ method: head.method, target: head.target, body: body.toString('latin1') });
    // The connection closes after this answer: what follows is never read.
    if (!head.keepAlive) return { requests, acceptedAll: at === raw.length };
  }
  return { requests, acceptedAll: true };
}

/** What Node's server saw on one connection. */
interface NodeConnection {
  readonly requests: Seen[];
  /** The code of the error Node closed the connection with (a parse error), if any. */
  error: string | undefined;
  readonly closed: Promise<void>;
}

/** Resolves when `socket` closes, whatever error it closes with (`once` would reject on one). */
const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => socket.once('close', () => resolve()));

let server: Server;
let port: number;
const connections = new WeakMap<Socket, NodeConnection>();
let onConnection: ((connection: NodeConnection) => void) | undefined;

beforeAll(async () => {
  server = createServer({ requireHostHeader: false }, (req: IncomingMessage, res) => {
    const connection = connections.get(req.socket as Socket)!;
    const pieces: Buffer[] = [];
    req.on('error', () => {});
    req.on('data', (bytes: Buffer) => pieces.push(bytes));
    // Only a request whose body ended counts as seen.
    req.on('end', () => {
      connection.requests.push({
        method: req.method!,
        target: req.url!,
        body: Buffer.concat(pieces).toString('latin1'),
      });
      res.end('ok');
    });
  });
  server.on('connection', (socket: Socket) => {
    const connection: NodeConnection = {
      requests: [],
      error: undefined,
      closed: closed(socket),
    };
    // Node destroys the socket with the parse error; listening changes nothing of its answer.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      connection.error ??= error.code ?? error.message;
    });
    connections.set(socket, connection);
    onConnection?.(connection);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

/** Sends `raw` on a fresh connection, then half-closes it; what Node read once both ends closed. */
async function nodeReading(raw: Buffer): Promise<Reading & { error: string | undefined }> {
  const accepted = new Promise<NodeConnection>((resolve) => {
    onConnection = resolve;
  });
  const client = connect(port, '127.0.0.1');
  try {
    client.on('error', () => {});
    client.resume();
    const clientClosed = closed(client);
    client.end(raw);
    const connection = await accepted;
    await Promise.all([connection.closed, clientClosed]);
    const { requests, error } = connection;
    return { requests, error, acceptedAll: error === undefined };
  } finally {
    onConnection = undefined;
    client.destroy();
  }
}

const GET = 'GET / HTTP/1.1\r\nHost: a\r\n';
const POST = 'POST / HTTP/1.1\r\nHost: a\r\n';
const CHUNKED = `${POST}Transfer-Encoding: chunked\r\n\r\n`;
const NEXT = 'GET /next HTTP/1.1\r\nHost: a\r\n\r\n';

// Raw requests, as latin1 strings: one character, one byte. Well-formed: we read them whole.
const READ_BY_US: Record<string, string> = {
  'a GET in origin-form': `GET /a?b=c HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n`,
  'a GET in absolute-form': 'GET http://a.example/b?c HTTP/1.1\r\n\r\n',
  'an OPTIONS *': 'OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n',
  'empty lines before a request': `\r\n\r\n${GET}\r\n`,
  'a POST with Content-Length': `${POST}Content-Length: 12\r\n\r\nhello\r\nworld`,
  'a zero-padded Content-Length': `${POST}Content-Length: 005\r\n\r\nhello`,
  'a POST with Expect: 100-continue': `${POST}Expect: 100-continue\r\nContent-Length: 5\r\n\r\nhello`,
  'a chunked POST': `${CHUNKED}5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n`,
  'chunk sizes in upper-case hex': `${CHUNKED}A\r\n0123456789\r\nB\r\n0123456789A\r\n0\r\n\r\n`,
  'chunk extensions': `${CHUNKED}5;a;b=c;d="e \\"f"\r\nhello\r\n0;z=1\r\n\r\n`,
  'chunk trailers': `${CHUNKED}5\r\nhello\r\n0\r\nX-Sum: 1\r\nHost: x\r\n\r\n`,
  'a body holding CR LF and binary bytes': `${POST}Content-Length: 6\r\n\r\n\r\n\x00\xff\r\n`,
  'obs-text in a header value': `${GET}X-A: caf\xe9\r\n\r\n`,
  'Transfer-Encoding:\\tchunked': `${POST}Transfer-Encoding:\tchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: Chunked': `${POST}Transfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer_Encoding is another header': `${POST}Transfer_Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`,
  'a Content-Length body, then a pipelined request': `${POST}Content-Length: 5\r\n\r\nhello${NEXT}`,
  'a chunked body, then a pipelined request': `${CHUNKED}5\r\nhello\r\n0\r\n\r\n${NEXT}`,
  'an HTTP/1.0 keep-alive request, then another': `GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\n`,
};

// We do not read these whole: refused, cut short, or bytes after the last request.
const NOT_READ_BY_US: Record<string, string> = {
  'a request after Connection: close': `${GET}Connection: close\r\n\r\n${NEXT}`,
  'a request after an HTTP/1.0 one': `GET /1 HTTP/1.0\r\n\r\n${NEXT}`,
  'a body shorter than its Content-Length': `${POST}Content-Length: 10\r\n\r\nhello`,
  'a chunked body without its last chunk': `${CHUNKED}5\r\nhello\r\n`,

  // Hostile heads.
  'a bare LF ending a header line': `${GET}X-A: a\nX-B: b\r\n\r\n`,
  'a request framed by LF only': 'GET / HTTP/1.1\nHost: a\n\n',
  'a bare CR inside a value': `${GET}X-A: a\rb\r\n\r\n`,
  'a bare CR ending a header line': `${GET}X-A: a\r\r\n\r\n`,
  'a NUL in a value': `${GET}X-A: a\x00b\r\n\r\n`,
  'a \\x01 in a value': `${GET}X-A: \x01\r\n\r\n`,
  'a DEL in a value': `${GET}X-A: a\x7f\r\n\r\n`,
  'a vertical tab before a value': `${GET}X-A:\x0ba\r\n\r\n`,
  'a folded header line': `${GET}X-A: a\r\n b\r\n\r\n`,
  'a space before the colon': `GET / HTTP/1.1\r\nHost : a\r\n\r\n`,
  'an empty header name': `${GET}: a\r\n\r\n`,
  'a header line without a colon': `${GET}garbage\r\n\r\n`,
  'a name that is not a token': `${GET}X(A): a\r\n\r\n`,
  'Content-Length twice, equal': `${POST}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello`,
  'Content-Length twice, unequal': `${POST}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
  'Content-Length: +5': `${POST}Content-Length: +5\r\n\r\nhello`,
  'Content-Length: -1': `${POST}Content-Length: -1\r\n\r\nhello`,
  'Content-Length: 5 5': `${POST}Content-Length: 5 5\r\n\r\nhello`,
  'Content-Length: 0x5': `${POST}Content-Length: 0x5\r\n\r\nhello`,
  'Content-Length of 16 digits, zero-padded': `${POST}Content-Length: 0000000000000005\r\n\r\nhello`,
  'Transfer-Encoding on HTTP/1.0': `POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: chunked, chunked': `${POST}Transfer-Encoding: chunked, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: gzip, chunked': `${POST}Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: xchunked': `${POST}Transfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: chunked;q=1': `${POST}Transfer-Encoding: chunked;q=1\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: identity': `${POST}Transfer-Encoding: identity\r\nContent-Length: 5\r\n\r\nhello`,
  'Host twice': 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
  'HTTP/2.0': 'GET / HTTP/2.0\r\n\r\n',
  'HTTP/1.2': 'GET / HTTP/1.2\r\n\r\n',
  'HTTP/0.9': 'GET / HTTP/0.9\r\n\r\n',
  'a lowercase http/1.1': 'GET / http/1.1\r\n\r\n',
  'two spaces in the request line': 'GET  / HTTP/1.1\r\n\r\n',
  'a tab in the request line': 'GET\t/ HTTP/1.1\r\n\r\n',
  'a target with non-ASCII': 'GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n',

  // Classic smuggling: a request hidden in another's body, read one way here and another there.
  'CL.TE': `${POST}Content-Length: 13\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nSMUGGLED`,
  'TE.CL': `${POST}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n`,
  'CL.TE with a pipelined request': `${POST}Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${NEXT}`,
  'Transfer-Encoding : chunked': `${POST}Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`,
  'Transfer-Encoding: chunked, then Transfer-Encoding: x': `${POST}Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding: x, then Transfer-Encoding: chunked': `${POST}Transfer-Encoding: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding folded onto a second line': `${POST}Transfer-Encoding: x\r\n chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'Transfer-Encoding with a vertical tab': `${POST}Transfer-Encoding:\x0bchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  'a chunk size written 0x5': `${CHUNKED}0x5\r\nhello\r\n0\r\n\r\n`,
  'a space between a chunk size and its extension': `${CHUNKED}5 ;ext\r\nhello\r\n0\r\n\r\n`,
  'a second number after a chunk size': `${CHUNKED}5 6\r\nhello\r\n0\r\n\r\n`,
  'a chunk size of 13 hex digits, zero-padded': `${CHUNKED}0000000000005\r\nhello\r\n0\r\n\r\n`,
  'a bare LF in a chunk extension': `${CHUNKED}2;a\nxx\r\n45\r\n0\r\n\r\n${NEXT}`,
  'a chunk size line ended by LF only': `${CHUNKED}5\nhello\r\n0\r\n\r\n`,
  'chunk data without CR LF after it': `${CHUNKED}5\r\nhelloXX0\r\n\r\n`,
  'chunk data longer than its size': `${CHUNKED}3\r\nhello\r\n0\r\n\r\n`,
  'an empty chunk extension': `${CHUNKED}5;\r\nhello\r\n0\r\n\r\n`,
  'a chunk extension without a name': `${CHUNKED}5;=b\r\nhello\r\n0\r\n\r\n`,
  'a chunk extension with an empty value': `${CHUNKED}5;a=\r\nhello\r\n0\r\n\r\n`,
  'a space inside a chunk extension': `${CHUNKED}5;a b\r\nhello\r\n0\r\n\r\n`,
  'an unterminated quoted chunk extension': `${CHUNKED}5;a="b\r\nhello\r\n0\r\n\r\n`,
  'a Content-Length trailer': `${CHUNKED}5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n`,
  'a Transfer-Encoding trailer': `${CHUNKED}5\r\nhello\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n`,
  'a trailer line without a colon': `${CHUNKED}5\r\nhello\r\n0\r\ngarbage\r\n\r\n`,
  'a folded trailer line': `${CHUNKED}5\r\nhello\r\n0\r\nX-A: 1\r\n 2\r\n\r\n`,
  'a trailer section ended by LF only': `${CHUNKED}5\r\nhello\r\n0\r\n\n${NEXT}`,
};

const CORPUS: Record<string, string> = { ...READ_BY_US, ...NOT_READ_BY_US };

// Node accepts these and we refuse them: stricter on purpose, where a proxy may read otherwise.
const STRICTER_THAN_NODE = new Set([
  // Over 15 digits is refused whatever the value; Node reads 0000000000000005 as 5.
  'Content-Length of 16 digits, zero-padded',
  // RFC 9112 §6.1: faulty framing in an HTTP/1.0 message; Node reads it chunked.
  'Transfer-Encoding on HTTP/1.0',
  // Only `chunked` alone is read; Node reads the body chunked and hands over the gzip bytes.
  'Transfer-Encoding: gzip, chunked',
  // Two Transfer-Encoding lines are one list, `x, chunked`: refused as above; Node reads chunked.
  'Transfer-Encoding: x, then Transfer-Encoding: chunked',
  // RFC 9112 §3.2 asks for a 400; Node keeps one Host, a proxy may route by the other.
  'Host twice',
  // Only HTTP/1.0 and HTTP/1.1; Node reads the request line of any version as HTTP/1.x.
  'HTTP/2.0',
  'HTTP/0.9',
  // One space between the parts of a request line (RFC 9112 §3); Node skips the extra one.
  'two spaces in the request line',
  // A chunk size is at most 12 hex digits, leading zeros counted; Node takes more.
  'a chunk size of 13 hex digits, zero-padded',
  // An extension name must be a token (RFC 9112 §7.1.1); Node takes `;=b`.
  'a chunk extension without a name',
  // An extension value must be a token or a quoted string; Node takes `;a=`.
  'a chunk extension with an empty value',
]);

describe('our reader against Node', () => {
  it.each(Object.keys(CORPUS))('%s', async (name) => {
    const raw = Buffer.from(CORPUS[name]!, 'latin1');
    const ours = ourReading(raw);
    expect(ours.acceptedAll).toBe(name in READ_BY_US);
    const node = await nodeReading(raw);
    // Every request we read, Node read the same way, in the same place.
    expect(node.requests.slice(0, ours.requests.length)).toEqual(ours.requests);
    if (ours.acceptedAll) {
      expect(node.error).toBeUndefined();
      expect(node.requests).toEqual(ours.requests);
    }
    // Where only Node reads the whole stream, the case is in the list above, and only then.
    expect(node.acceptedAll && !ours.acceptedAll).toBe(STRICTER_THAN_NODE.has(name));
  });

  it('sees the request after a body as the next one, on both sides', async () => {
    const raw = Buffer.from(READ_BY_US['a chunked body, then a pipelined request']!, 'latin1');
    const expected = [
      { method: 'POST', target: '/', body: 'hello' },
      { method: 'GET', target: '/next', body: '' },
    ];
    expect(ourReading(raw).requests).toEqual(expected);
    expect((await nodeReading(raw)).requests).toEqual(expected);
  });
});
