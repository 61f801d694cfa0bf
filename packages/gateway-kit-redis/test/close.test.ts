import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisClient, RedisJobStore, RedisRecordStore } from '../src/index.ts';
import { runClosingProcess } from './closing-process.ts';
import { freePort, startRedis, type TestRedis } from './redis-server.ts';

// close() whenever it is called: a process that constructed stores and closed them at once (while
// their connections were still opening) must exit by itself, with nothing of the stores left open.
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

const quiet = (): void => {};

describe('close() right after the constructor', () => {
  it('a process that constructs a job and a record store and closes them at once exits by itself', async () => {
    const run = await runClosingProcess({ REDIS_URL: redis.url, STORES: 'job,record' });
    expect(run.exitedByItself, run.output).toBe(true);
    expect(run.code, run.output).toBe(0);
    expect(run.report).toEqual({ closed: true, sockets: 0, timers: 0 });
  });

  it('also with the pub/sub subscriber opening (onCancel) and the sweeper running, closed twice', async () => {
    const run = await runClosingProcess({ REDIS_URL: redis.url, STORES: 'job', SUBSCRIBE: '1' });
    expect(run.exitedByItself, run.output).toBe(true);
    expect(run.report).toEqual({ closed: true, sockets: 0, timers: 0 });
  });

  it('with Redis down, closed while node-redis waits to retry: no retry timer left once close() resolved', async () => {
    const port = await freePort(); // nothing listens there
    const run = await runClosingProcess({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      STORES: 'job,record',
      SUBSCRIBE: '1',
      AFTER_ERROR: '1',
    });
    expect(run.exitedByItself, run.output).toBe(true);
    expect(run.report).toEqual({ closed: true, sockets: 0, timers: 0 });
  });

  it('the subscriber duplicated from a client you gave is closed; your client stays open', async () => {
    const client = createClient({ url: redis.url, disableOfflineQueue: true });
    client.on('error', quiet);
    await client.connect();
    try {
      const before = new Set(liveSockets());
      const given = client as unknown as RedisClient;
      const jobs = new RedisJobStore({ client: given, onError: quiet });
      const records = new RedisRecordStore({ client: given, onError: quiet });
      jobs.onCancel('some-job', quiet);
      const closing = jobs.close();
      expect(jobs.close()).toBe(closing);
      await Promise.all([closing, records.close()]);
      expect(
        liveSockets()
          .filter((socket) => !before.has(socket))
          .map(describeSocket),
      ).toEqual([]);
      expect(client.isReady).toBe(true);
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.destroy();
    }
  });
});

/** Where a socket connects (or that it is still connecting), for failure messages. */
function describeSocket(socket: unknown): string {
  const { connecting, remotePort } = socket as { connecting: boolean; remotePort?: number };
  return connecting ? 'a socket still connecting' : `a socket open to port ${remotePort}`;
}

/** The sockets of this process that are not destroyed. */
function liveSockets(): unknown[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter(
    (handle) =>
      handle?.constructor?.name === 'Socket' &&
      handle !== process.stdout &&
      handle !== process.stderr &&
      !(handle as { destroyed: boolean }).destroyed,
  );
}
