import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Answers one connection may have waiting behind the one being sent (HTTP/1.1 pipelining). Node
 * runs every request it has read, however many a client sends ahead of reading its answers: 500
 * pipelined invokes on one connection ran 500 actions at once, and the answers of requests that
 * are never read were kept in memory.
 */
export const MAX_QUEUED_ANSWERS = 16;

/**
 * Bytes of answers that may wait behind another answer on their connection, all connections of
 * the process together. Each connection may queue {@link MAX_QUEUED_ANSWERS} answers of up to
 * 256 KiB (a job's result, a kept idempotent answer): 510 connections that pipelined `GET`s of one
 * such job and read nothing ran a process with a 256 MiB heap out of memory.
 */
export const MAX_QUEUED_ANSWER_BYTES: number = 32 * 1024 * 1024;

const QUEUED: unique symbol = Symbol('svc.queuedAnswers');
const QUEUED_BYTES: unique symbol = Symbol('svc.queuedAnswerBytes');

/**
 * Node's socket, with the answer it is sending and the kit's count of answers queued behind it
 * (and of their bytes).
 */
type Connection = Socket & {
  _httpMessage?: unknown;
  [QUEUED]?: number;
  [QUEUED_BYTES]?: number | undefined;
};

/** Bytes of queued answers in the process, at most {@link MAX_QUEUED_ANSWER_BYTES}. */
let queuedAnswerBytes = 0;

/**
 * Whether `req` is past the {@link MAX_QUEUED_ANSWERS} budget of its connection (or its
 * connection is already gone): the connection is then destroyed, and the request is not served.
 * A request answered in turn (no pipelining, the common case) costs one comparison.
 *
 * @example
 * if (pipelinedTooFar(req, res)) return; // the caller pipelines without reading its answers
 */
export function pipelinedTooFar(req: IncomingMessage, res: ServerResponse): boolean {
  const socket = req.socket as Connection | null;
  // Node sets the answer being sent on the socket before calling the handler; a queued one waits.
  if (socket === null || socket._httpMessage === res) return false;
  // No answer being sent: a request made by Fastify's `inject()`, whose socket is its own.
  if (socket._httpMessage == null) return false;
  if (socket.destroyed) return true;
  const queued = (socket[QUEUED] ?? 0) + 1;
  if (queued > MAX_QUEUED_ANSWERS) {
    socket.destroy();
    return true;
  }
  socket[QUEUED] = queued;
  res.once('finish', () => {
    socket[QUEUED] = (socket[QUEUED] ?? 1) - 1;
  });
  return false;
}

/**
 * Whether an answer of `bytes` for `res` would wait behind another answer on its connection while
 * the answers already waiting so hold {@link MAX_QUEUED_ANSWER_BYTES} (or its connection is already
 * gone): the connection is then destroyed, and the answer not written. An answer that fits is
 * counted until it has gone out, or its connection closed. An answer sent in turn (no pipelining,
 * the common case) costs one comparison: only a client that pipelines pays.
 *
 * @example
 * if (queuedAnswerTooLarge(req, res, Buffer.byteLength(body))) return; // the caller does not read
 */
export function queuedAnswerTooLarge(
  req: IncomingMessage | undefined,
  res: ServerResponse,
  bytes: number,
): boolean {
  // No request or socket: an answer made by a framework's `inject()`, which has none to protect.
  const socket = (req?.socket ?? null) as Connection | null;
  if (socket === null || socket._httpMessage === res || socket._httpMessage == null) return false;
  if (socket.destroyed) return true;
  if (queuedAnswerBytes + bytes > MAX_QUEUED_ANSWER_BYTES) {
    socket.destroy();
    return true;
  }
  const held = socket[QUEUED_BYTES];
  if (held === undefined) socket.once('close', releaseConnection);
  socket[QUEUED_BYTES] = (held ?? 0) + bytes;
  queuedAnswerBytes += bytes;
  res.once('finish', () => {
    // Already given back with its connection.
    if (socket[QUEUED_BYTES] === undefined) return;
    socket[QUEUED_BYTES] -= bytes;
    queuedAnswerBytes -= bytes;
  });
  return false;
}

/** Gives back what a closed connection's queued answers still held. */
function releaseConnection(this: Connection): void {
  queuedAnswerBytes -= this[QUEUED_BYTES] ?? 0;
  this[QUEUED_BYTES] = undefined;
}

/** Bytes of answers queued behind another in the process now (for tests). */
export function queuedAnswerBytesNow(): number {
  return queuedAnswerBytes;
}
