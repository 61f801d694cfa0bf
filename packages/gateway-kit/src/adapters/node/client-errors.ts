import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { GATEWAY_ERRORS, type GatewayErrorCode } from '../../contract/error-catalogue.ts';
import { errorReply, JSON_HEADERS } from '../../http/replies.ts';

/** The catalogue code for a Node client error (`clientError`), by Node's error code. */
const CODES: ReadonlyMap<string | undefined, GatewayErrorCode> = /* @__PURE__ */ new Map([
  ['HPE_HEADER_OVERFLOW', 'headers_too_large'],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'payload_too_large'],
  ['ERR_HTTP_REQUEST_TIMEOUT', 'request_timeout'],
]);
/** Any other parse error. */
const OTHERWISE: GatewayErrorCode = 'malformed_request';

/** The answer to a code as the bytes sent, with `Connection: close`. */
function answerBytes(code: GatewayErrorCode): Buffer {
  const { body } = errorReply(code);
  const { status } = GATEWAY_ERRORS[code];
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`];
  for (const [name, value] of Object.entries(JSON_HEADERS)) head.push(`${name}: ${value}`);
  head.push(`content-length: ${Buffer.byteLength(body as string)}`, 'connection: close');
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body as string}`);
}

/** Each answer, made once at start-up (a few hundred bytes each). */
const ANSWERS: ReadonlyMap<GatewayErrorCode, Buffer> = /* @__PURE__ */ new Map(
  [...CODES.values(), OTHERWISE].map((code) => [code, answerBytes(code)]),
);

/**
 * The bytes of the answer to a request refused before any handler ran (`400`, `408`, `413` or
 * `431`), with `Connection: close`; made once at start-up.
 */
export function clientErrorAnswer(
  code: 'malformed_request' | 'headers_too_large' | 'payload_too_large' | 'request_timeout',
): Buffer {
  return ANSWERS.get(code)!;
}

/** A socket of a `node:http` server, with the exchange in flight on it (Node's own field). */
type ServerSocket = Duplex & { readonly _httpMessage?: { readonly headersSent?: boolean } | null };

/**
 * The `clientError` listener for a `node:http` server of your own, answering as `serve()` does
 * what Node refuses for a request it cannot serve (headers over its 16 KiB limit, a request or
 * headers timeout, bytes that are not HTTP/1.1), with the contract's error envelope instead of
 * Node's empty answer: `431 headers_too_large`,
 * `408 request_timeout`, `413 payload_too_large` (chunk extensions over Node's limit) or
 * `400 malformed_request`. As Node does, it answers only when no answer has started on the
 * connection, then destroys the socket at once (nothing is kept for a client that does not read).
 *
 * @example
 * createServer(toNodeHandler(gateway)).on('clientError', answerClientError).listen(8787);
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const { _httpMessage: inFlight } = socket as ServerSocket;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent)
    socket.write(ANSWERS.get(CODES.get(error.code) ?? OTHERWISE)!);
  socket.destroy();
}
