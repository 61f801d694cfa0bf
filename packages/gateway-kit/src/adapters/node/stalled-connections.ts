import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { refusalFor } from '../../runtime/config-refusal.ts';
import { MAX_TIMER_MS } from '../../runtime/limits.ts';

/** How long an answer may wait for its client to take it, by default. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/**
 * Closes the connections of `server` whose answer its client does not take: an answer written and
 * not gone out whole (into the kernel's buffers) within `sendTimeoutMs`, counted from when it was
 * written or the previous write went out (a client that stopped reading, or that pipelines
 * requests and never reads the answers). Node keeps such a connection, its answers and its place
 * within `maxConnections` for ever: none of its timeouts covers sending.
 * Checked once a second (or every `sendTimeoutMs`, when shorter); stops when the server closes.
 * `serve()`'s own server does the same; call it on a server of your own
 * (`createServer(toNodeHandler(gateway))`, Express's, Fastify's `app.server`).
 *
 * @param sendTimeoutMs - Whole milliseconds, from 1 to 2 147 483 647. Default 30 000.
 * @throws {GatewayConfigError} when `sendTimeoutMs` is not such a number.
 * @example
 * import { createServer } from 'node:http';
 * import { answerClientError, closeStalledConnections, toNodeHandler } from '@svc/gateway-kit/node';
 *
 * const server = createServer(toNodeHandler(gateway)).on('clientError', answerClientError);
 * closeStalledConnections(server); // an answer not taken within 30 s closes its connection
 * server.listen(8787);
 */
export function closeStalledConnections(
  server: Server,
  sendTimeoutMs: number = DEFAULT_SEND_TIMEOUT_MS,
): void {
  if (!Number.isInteger(sendTimeoutMs) || sendTimeoutMs < 1 || sendTimeoutMs > MAX_TIMER_MS)
    refusalFor('closeStalledConnections')(
      'sendTimeoutMs',
      sendTimeoutMs,
      'expected whole milliseconds from 1 to 2147483647.',
    );
  /** Each open connection, with what was waiting to be sent when it was last seen, and since when. */
  const connections = new Map<Socket, { bytes: number; since: number }>();
  const forget = function (this: Socket): void {
    connections.delete(this);
  };
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { bytes: 0, since: 0 });
    socket.once('close', forget);
  });
  const sweep = (): void => {
    const now = performance.now();
    for (const [socket, seen] of connections) {
      const bytes = socket.writableLength;
      // Bytes that began to wait, or fewer than before (a whole write went out): the clock starts
      // again. Node counts a write as waiting until all of it is in the kernel's buffers.
      if (seen.bytes === 0 || bytes < seen.bytes) seen.since = now;
      else if (now - seen.since >= sendTimeoutMs) socket.destroy();
      seen.bytes = bytes;
    }
  };
  const timer = setInterval(sweep, Math.min(1_000, sendTimeoutMs));
  timer.unref();
  server.once('close', () => clearInterval(timer));
}
