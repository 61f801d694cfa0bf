import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback POSTed to the receiver. */
export interface ReceivedCallback {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** The body exactly as received (what a signature covers). */
  readonly raw: string;
}

/** A loopback HTTP server standing in for the hosted service's callback endpoints. */
export interface CallbackReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly received: readonly ReceivedCallback[];
  /** Resolves with the first callback (received already, or later) whose `webhook-id` is `id`. */
  waitFor(webhookId: string, timeoutMs?: number): Promise<ReceivedCallback>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that answers every POST with 204 and records it. */
export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        raw: text,
      });
      res.writeHead(204).end();
      for (const wake of waiters) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const find = (id: string) => received.find((r) => r.headers['webhook-id'] === id);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    waitFor: (webhookId, timeoutMs = 10_000) => {
      const found = find(webhookId);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const wake = (): void => {
          const hit = find(webhookId);
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const seen = received.map((r) => r.headers['webhook-id']).join(', ') || 'none';
          reject(
            new Error(`no callback "${webhookId}" within ${timeoutMs} ms (received: ${seen})`),
          );
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
