import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isStoreUnavailableError, RedisJobStore, RedisRecordStore } from '../src/index.ts';
import { eventually, within } from './gateway-processes.ts';
import { freePort, startRedis, type TestRedis } from './redis-server.ts';
import { cancelChannels, waitForSubscribers } from './subscribers.ts';

let redis: TestRedis;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  vi.restoreAllMocks();
});
afterAll(() => redis.stop());

const quiet = (): void => {};

describe('a node given by clientOptions.socket', () => {
  it('is where the store connects when no url is given (the default URL used to override it)', async () => {
    const name = `socket-${randomUUID()}`;
    const store = new RedisRecordStore({
      clientOptions: { name, socket: { host: '127.0.0.1', port: redis.port } },
    });
    const observer = createClient({ url: redis.url });
    await observer.connect();
    try {
      await store.ready();
      expect(String(await observer.sendCommand(['CLIENT', 'LIST']))).toContain(`name=${name}`);
    } finally {
      await store.close();
      await observer.close();
    }
  });
});

describe('start-up', () => {
  it('ready() rejects fast with a clear error naming the URL without its password', async () => {
    const port = await freePort(); // nothing listens there
    const url = `redis://gateway:s3cret-pass@127.0.0.1:${port}/2`;
    const jobs = new RedisJobStore({ url, connectTimeoutMs: 300, onError: quiet });
    const records = new RedisRecordStore({ url, connectTimeoutMs: 300, onError: quiet });
    closers.push(
      () => jobs.close(),
      () => records.close(),
    );
    for (const store of [jobs, records]) {
      const started = Date.now();
      const error = await store.ready().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(isStoreUnavailableError(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toBe(
        `Cannot reach Redis at redis://gateway:***@127.0.0.1:${port}/2 within 300 ms.`,
      );
      expect(message).not.toContain('s3cret');
    }
  });

  it('ready() says Redis refused the login, with its reason and without the password', async () => {
    // An ACL user Redis does not know: it answers WRONGPASS to every connection attempt.
    const url = `redis://nobody:s3cret-pass@127.0.0.1:${redis.port}`;
    for (const store of [
      new RedisJobStore({ url, connectTimeoutMs: 300, onError: quiet }),
      new RedisRecordStore({ url, connectTimeoutMs: 300, onError: quiet }),
    ]) {
      closers.push(() => store.close());
      const error = await store.ready().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(isStoreUnavailableError(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toMatch(
        new RegExp(
          `^Redis at redis://nobody:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port} refused the login: WRONGPASS `,
        ),
      );
      expect(message).not.toContain('s3cret');
    }
  });

  it('ready() resolves once Redis answers', async () => {
    const jobs = new RedisJobStore({ url: redis.url, onError: quiet });
    closers.push(() => jobs.close());
    await expect(jobs.ready()).resolves.toBeUndefined();
  });

  it('without ready(), a store started while Redis is down runs degraded and recovers by itself', async () => {
    const own = await startRedis();
    closers.push(() => own.stop());
    await own.kill();
    const records = new RedisRecordStore({
      url: own.url,
      connectTimeoutMs: 200,
      commandTimeoutMs: 500,
      onError: quiet,
    });
    closers.push(() => records.close());
    const down = await records.get('k').catch((error: unknown) => error);
    expect(isStoreUnavailableError(down)).toBe(true);
    await own.start();
    await eventually(() => records.get('k').then(() => true), 10_000, 'the store to reconnect');
  });

  it('a job store and a record store started while Redis is down serve a create/get round trip once it is up', async () => {
    const own = await startRedis();
    closers.push(() => own.stop());
    await own.kill();
    const reports: unknown[] = [];
    const options = {
      url: own.url,
      connectTimeoutMs: 200,
      commandTimeoutMs: 500,
      onError: (event: unknown) => reports.push(event),
    };
    const jobs = new RedisJobStore({ ...options, sweepIntervalMs: 0 });
    const records = new RedisRecordStore(options);
    closers.push(
      () => jobs.close(),
      () => records.close(),
    );
    // Both found Redis down (each reports the lost connection once) and fail meanwhile.
    await eventually(
      async () => (reports.filter(isStoreUnavailableError).length >= 2 ? true : undefined),
      5_000,
      'both stores to report Redis unreachable',
    );
    expect(isStoreUnavailableError(await jobs.get('none').catch((error) => error))).toBe(true);
    expect(isStoreUnavailableError(await records.get('none').catch((error) => error))).toBe(true);
    await own.start();
    const { job: created } = await eventually(
      () =>
        jobs.create({
          jobId: 'after-start-up',
          ownerId: 'o',
          invocationId: 'inv-after-start-up',
          actionId: 'export',
          actionName: 'Export',
          status: 'queued',
          createdAt: new Date().toISOString(),
        }),
      10_000,
      'the job store to serve',
    );
    expect(await jobs.get('after-start-up')).toEqual(created);
    await eventually(
      () => records.create('after-start-up', { n: 1 }, 60_000),
      10_000,
      'the record store to serve',
    );
    expect(await records.get('after-start-up')).toEqual({ value: { n: 1 }, version: 1 });
  });
});

describe('cancel delivery after a start-up with Redis down', () => {
  it('an onCancel made while Redis is down subscribes once Redis is back: a cancel from another instance arrives through pub/sub, not polling', async () => {
    const own = await startRedis({ persistent: true }); // the job outlives the restart
    closers.push(() => own.stop());
    const prefix = `sub:${randomUUID()}:`;
    const other = new RedisJobStore({ url: own.url, prefix, sweepIntervalMs: 0, onError: quiet });
    closers.push(() => other.close());
    await other.create({
      jobId: 'watched',
      ownerId: 'o',
      invocationId: 'inv-watched',
      actionId: 'export',
      actionName: 'Export',
      status: 'running',
      createdAt: new Date().toISOString(),
    });
    await own.kill();
    // Polling would take ten minutes: within this test only the subscription can deliver.
    const store = new RedisJobStore({
      url: own.url,
      prefix,
      cancelPollIntervalMs: 600_000,
      sweepIntervalMs: 0,
      connectTimeoutMs: 200,
      onError: quiet,
    });
    closers.push(() => store.close());
    let heard: () => void = () => {};
    const cancelled = new Promise<void>((resolve) => {
      heard = resolve;
    });
    store.onCancel('watched', () => heard());
    // Once ready() gave up, so had the subscription's first attempt (made earlier, same timeout).
    await expect(store.ready()).rejects.toThrow(/Cannot reach Redis/);
    await own.start();
    const raw = createClient({ url: own.url });
    raw.on('error', quiet); // own.stop() runs first
    closers.push(async () => raw.destroy());
    await raw.connect();
    await waitForSubscribers(
      raw,
      cancelChannels(prefix, false),
      'the store to subscribe to its cancel channel',
    );
    await eventually(() => other.get('watched'), 5_000, 'the other instance to reconnect');
    const sent = performance.now();
    await other.requestCancel('watched');
    await within(cancelled, 2_000, 'the listener to hear of the cancel');
    expect(performance.now() - sent).toBeLessThan(500);
  }, 60_000); // starts, stops and restarts a redis-server on a shared machine
});

describe('outage logging (default reporter)', () => {
  it('one warn line when Redis goes, one info line when it is back; no stacks, nothing per sweep', async () => {
    const own = await startRedis();
    closers.push(() => own.stop());
    const lines: { level: string; args: unknown[] }[] = [];
    for (const level of ['warn', 'info', 'error'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push({ level, args });
      });
    const store = new RedisJobStore({
      url: own.url,
      prefix: `log:${randomUUID()}:`,
      sweepIntervalMs: 50, // many failing sweeps during the outage
      commandTimeoutMs: 300,
    });
    closers.push(() => store.close());
    await store.ready();
    await own.kill();
    await eventually(
      async () => (lines.length > 0 ? true : undefined),
      5_000,
      'the outage to be logged',
    );
    // The outage lasts a second (the scenario, not a wait for something): about 20 sweeps fail
    // meanwhile, and none may log a line.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await own.start();
    await eventually(
      async () => (lines.some((line) => line.level === 'info') ? true : undefined),
      10_000,
      'the recovery to be logged',
    );
    expect(lines.map((line) => line.level)).toEqual(['warn', 'info']);
    for (const line of lines) expect(line.args.every((arg) => typeof arg === 'string')).toBe(true);
    expect(String(lines[0]!.args[0])).toMatch(
      new RegExp(
        `^\\[@svc/gateway-kit-redis\\] Redis command connection to redis://127\\.0\\.0\\.1:${own.port} lost`,
      ),
    );
    expect(lines[1]!.args[0]).toBe(
      `[@svc/gateway-kit-redis] Redis command connection to redis://127.0.0.1:${own.port} restored.`,
    );
  }, 60_000); // starts, stops and restarts a redis-server on a shared machine
  it('a paused Redis: one warn line for the missed deadline, one info line once it answers again', async () => {
    const own = await startRedis();
    closers.push(async () => {
      own.resume();
      await own.stop();
    });
    const lines: { level: string; args: unknown[] }[] = [];
    for (const level of ['warn', 'info', 'error'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push({ level, args });
      });
    const store = new RedisJobStore({
      url: own.url,
      prefix: `log:${randomUUID()}:`,
      sweepIntervalMs: 50, // every sweep misses the deadline while paused
      commandTimeoutMs: 300,
    });
    closers.push(() => store.close());
    await store.ready();
    own.pause();
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the length of the pause
    own.resume();
    await eventually(
      async () => (lines.some((line) => line.level === 'info') ? true : undefined),
      10_000,
      'the recovery to be logged',
    );
    expect(lines).toEqual([
      {
        level: 'warn',
        args: [
          `[@svc/gateway-kit-redis] Redis at redis://127.0.0.1:${own.port} missed a deadline: reconnecting.`,
        ],
      },
      {
        level: 'info',
        args: [
          `[@svc/gateway-kit-redis] Redis command connection to redis://127.0.0.1:${own.port} restored.`,
        ],
      },
    ]);
  }, 60_000); // starts, stops and restarts a redis-server on a shared machine
});
