// A client on raw sockets, for tests of what a server puts on the wire.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** A TCP connection to `url`'s port on 127.0.0.1 (errors, such as a reset, are left to `close`). */
export function openSocket(url: string): Socket {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  return socket;
}

/** Everything the server sends until it closes the connection, as latin1 text. */
export async function untilClosed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  if (!socket.destroyed) await once(socket, 'close');
  return received;
}
