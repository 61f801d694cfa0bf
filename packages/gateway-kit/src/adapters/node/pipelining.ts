import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Answers one connection may have waiting behind the one being sent (HTTP/1.1 pipelining). Node
 * runs every request it has read, however many a client sends ahead of reading its answers: 500
 * pipelined invokes on one connection ran 500 actions at once, and the answers of requests that
 * are never read were kept in memory.
 */
export const MAX_QUEUED_ANSWERS = 16;

const QUEUED: unique symbol = Symbol('svc.queuedAnswers');

/** Node's socket, with the answer it is sending and the kit's count of answers queued behind it. */
type Connection = Socket & { _httpMessage?: unknown; [QUEUED]?: number };

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
