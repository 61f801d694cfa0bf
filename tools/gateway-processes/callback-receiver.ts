import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback request as the receiver saw it. */
export interface ReceivedCallback {
  readonly webhookId: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
  /** `Date.now()` when it arrived. */
  readonly at: number;
  /** The status answered (0: left hanging). */
  readonly answered: number;
}

/** How the receiver answers: a status, or `hang` (never answer until the mode changes). */
export type ReceiverMode = number | 'hang';

/** A loopback HTTP callback receiver (Standard Webhooks headers recorded) whose answers tests set. */
export interface CallbackReceiver {
  readonly url: string;
  readonly received: ReceivedCallback[];
  /** Answers from now on (hanging requests stay open until `close`). */
  answer(mode: ReceiverMode): void;
  /** Deliveries answered 2xx, by webhook id. */
  deliveredIds(): string[];
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1 answering `mode` (default 200).
 *
 * @example
 * const receiver = await startReceiver('hang');
 */
export async function startReceiver(mode: ReceiverMode = 200): Promise<CallbackReceiver> {
  let current = mode;
  const received: ReceivedCallback[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answered = current === 'hang' ? 0 : current;
      received.push({
        webhookId: String(request.headers['webhook-id']),
        timestamp: String(request.headers['webhook-timestamp']),
        signature: String(request.headers['webhook-signature']),
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
        answered,
      });
      if (answered === 0) {
        hanging.add(response);
        return;
      }
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    answer: (next) => {
      current = next;
    },
    deliveredIds: () =>
      received.filter((r) => r.answered >= 200 && r.answered < 300).map((r) => r.webhookId),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
