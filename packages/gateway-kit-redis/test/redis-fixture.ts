import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startRedis, type TestRedis } from './redis-server.ts';

/** What {@link useRedis} gives a test file; `redis` and `raw` are set once its `beforeAll` ran. */
export interface RedisFixture {
  redis: TestRedis;
  /** A plain node-redis client on the server, to look at keys directly. */
  raw: ReturnType<typeof createClient>;
  /** Called after each test, last pushed first (gateways before the stores they use). */
  readonly closers: (() => Promise<unknown>)[];
}

/**
 * One redis-server for the test file and a raw client on it, stopped after the file; what a test
 * pushes onto `closers` is closed after it.
 *
 * @example
 * const fixture = useRedis();
 * it('…', async () => {
 *   const store = new RedisJobStore({ url: fixture.redis.url });
 *   fixture.closers.push(() => store.close());
 * });
 */
export function useRedis(): RedisFixture {
  const fixture = { closers: [] } as unknown as RedisFixture;
  beforeAll(async () => {
    fixture.redis = await startRedis();
    fixture.raw = createClient({ url: fixture.redis.url });
    await fixture.raw.connect();
  });
  afterEach(async () => {
    for (const close of fixture.closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    fixture.raw.destroy();
    await fixture.redis.stop();
  });
  return fixture;
}
