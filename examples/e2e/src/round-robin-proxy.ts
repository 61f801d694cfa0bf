import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP proxy that sends each request to the next upstream in turn. */
export interface RoundRobinProxy {
  readonly url: string;
  /** Requests sent to each upstream so far, in upstream order. */
  readonly counts: readonly number[];
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 in front of `upstreams` (origins such as `http://127.0.0.1:4001`):
 * request by request, not connection by connection, as a load balancer without affinity does.
 * The `Host` header is passed through, so the gateways build their URLs from the proxy's.
 *
 * @example
 * const proxy = await startRoundRobinProxy([a.url, b.url]);
 */
export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  const counts = upstreams.map(() => 0);
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length;
    counts[index]! += 1;
    const target = new URL(incoming.url ?? '/', upstreams[index]);
    const forwarded = request(
      target,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
