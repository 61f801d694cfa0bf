import { connect, createServer, type Socket } from 'node:net';
import type { createClient } from 'redis';
import { RESP_TYPES } from 'redis';

/**
 * A loopback TCP proxy in front of one Redis, to lose what a failover loses: `dropOn('WAIT', …)`
 * cuts the next connection that sends a `WAIT`, before Redis sees it (the write before it stands),
 * and holds new connections until the given step is done (e.g. putting back what Redis held before
 * that write, as a promoted replica that missed it would hold it).
 */
export interface RedisProxy {
  readonly url: string;
  /**
   * The next connection that sends `command` is cut before Redis sees it; `meanwhile` runs before
   * any connection reaches Redis again. Resolves once that happened.
   */
  dropOn(command: string, meanwhile?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisProxy(port: number): Promise<RedisProxy> {
  const sockets = new Set<Socket>();
  let drop: { pattern: Buffer; meanwhile: () => Promise<void>; done: () => void } | undefined;
  let held: Promise<void> = Promise.resolve();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pause();
    void held.then(() => {
      if (socket.destroyed) return;
      const upstream = connect(port, '127.0.0.1');
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        socket.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      socket.on('close', () => upstream.destroy());
      socket.on('data', (chunk: Buffer) => {
        if (drop && chunk.includes(drop.pattern)) {
          const { meanwhile, done } = drop;
          drop = undefined;
          held = meanwhile().then(done);
          socket.destroy();
          return;
        }
        upstream.write(chunk);
      });
      upstream.pipe(socket);
      socket.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    dropOn: (command, meanwhile = async () => {}) =>
      new Promise<void>((done) => {
        // As a RESP bulk string: the command name alone on its line.
        drop = { pattern: Buffer.from(`\r\n${command}\r\n`), meanwhile, done };
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

type Client = ReturnType<typeof createClient>;

/** Every key under `prefix` as Redis holds it now (value and time to live), to put back later. */
export async function snapshot(raw: Client, prefix: string): Promise<() => Promise<void>> {
  const binary = raw.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const keys: string[] = [];
  for await (const page of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1_000 }))
    keys.push(...page);
  const saved = await Promise.all(
    keys.map(async (key) => ({
      key,
      value: (await binary.dump(key)) as unknown as Buffer,
      ttl: Number(await raw.pTTL(key)),
    })),
  );
  return async () => {
    const now: string[] = [];
    for await (const page of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1_000 }))
      now.push(...page);
    if (now.length > 0) await raw.del(now);
    for (const { key, value, ttl } of saved)
      await raw.restore(key, Math.max(ttl, 0), value, { REPLACE: true });
  };
}
