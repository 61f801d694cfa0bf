import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A callback the receiver got. */
export interface ReceivedCallback {
  readonly path: string;
  readonly authorization: string | undefined;
}

/** A local HTTP server that records the callbacks a gateway POSTs to it. */
export interface CallbackReceiver {
  /** `http://<host>:<port>`, as the gateway (or a proxy in front of the receiver) reaches it. */
  readonly url: string;
  /**
   * Resolves with the first callback to one of `paths` (a proxy in front of the receiver may keep
   * or strip a prefix), or `undefined` after `timeoutMs`.
   */
  next(paths: readonly string[], timeoutMs: number): Promise<ReceivedCallback | undefined>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_CALLBACKS = 100;

/** The receiver could not listen (the port is in use, not allowed, …): a setup problem, said plainly. */
export class CallbackListenError extends Error {}

const LISTEN_HINTS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is in use',
  EACCES: 'listening on this port is not allowed to this user',
  EADDRNOTAVAIL: 'the address is not one of this machine',
};

/**
 * Starts a receiver on `host` (`port`, default any free one; `0.0.0.0` binding for a
 * non-loopback host) that answers every POST with 204. Bodies are read up to 1 MiB and dropped:
 * only arrival and the `Authorization` header are checked, for at most 100 callbacks. Rejects
 * with a {@link CallbackListenError} saying why when it cannot listen.
 */
export async function startCallbackReceiver(host: string, port = 0): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > MAX_BODY_BYTES) req.destroy();
    });
    req.on('end', () => {
      if (received.length < MAX_CALLBACKS) {
        received.push({ path: req.url ?? '', authorization: req.headers.authorization });
      }
      res.writeHead(204).end();
      for (const wake of waiters) wake();
    });
  });
  server.requestTimeout = 10_000;
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  const address = loopback ? host.replace(/^\[|\]$/g, '') : '0.0.0.0';
  server.listen(port, address);
  try {
    await once(server, 'listening');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why =
      typeof code === 'string' ? `${LISTEN_HINTS[code] ?? 'it failed'} (${code})` : String(error);
    throw new CallbackListenError(
      `the callback receiver could not listen on ${address.includes(':') ? `[${address}]` : address}:${port}: ${why}`,
    );
  }
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    next: (paths, timeoutMs) =>
      new Promise((resolve) => {
        const find = () => received.find((r) => paths.includes(r.path));
        const wake = (): void => {
          const hit = find();
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(undefined);
        }, timeoutMs);
        waiters.add(wake);
        wake();
      }),
    // Answers already written are flushed first: idle connections close now, busy ones within 1 s.
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 1_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
