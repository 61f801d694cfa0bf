import { randomUUID } from 'node:crypto';
import type { NewJob, StoredJob } from '@svc/gateway-kit/store';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RedisClient, RedisJobStore } from '../src/index.ts';
import { KeyLayout } from '../src/key-layout.ts';
import { newJob } from './new-job.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

// A Redis outage longer than leaseMs lapses every lease, live instances' included. When Redis is
// back, a sweeper must not fail a live instance's job before that instance renewed its lease; a
// dead instance's job must still end as worker_lost, at most about one leaseMs later.

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url, disableOfflineQueue: true });
  raw.on('error', () => {});
  await raw.connect();
});
afterAll(async () => {
  redis.resume();
  raw.destroy();
  await redis.stop();
});

const LEASE_MS = 2_000;
const SWEEP_MS = 50;

const job = (jobId: string): NewJob => newJob(jobId, 'running');

/** Polls `condition` until it holds; fails after `timeoutMs`. */
async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Calls Redis has run of `command` (INFO commandstats), commands inside scripts included. */
async function commandCalls(command: string): Promise<number> {
  const stats = await raw.sendCommand<string>(['INFO', 'commandstats']);
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

it('after an outage longer than leaseMs a live job is not failed before its instance renews it; a dead instance’s job still ends worker_lost', async () => {
  const prefix = `outage:${randomUUID()}:`;
  const keys = new KeyLayout(prefix, 1); // one bucket: the default on one node
  const quiet = (): void => {};
  // B: the sweeper, connected by URL (the store owns and watches its connection).
  const b = new RedisJobStore({
    url: redis.url,
    prefix,
    leaseMs: LEASE_MS,
    sweepIntervalMs: SWEEP_MS,
    commandTimeoutMs: 300,
    onError: quiet,
  });
  const reported: StoredJob[] = [];
  b.onWorkerLost((lost) => {
    reported.push(lost);
    void b.announced(lost.jobId);
  });
  // A: the live instance running job `live` (no sweeper of its own). Its client is the test's, so
  // the test decides when A is back after the outage: after B, as an instance that reconnects
  // later than another one would.
  const clientA = createClient({ url: redis.url, disableOfflineQueue: true });
  clientA.on('error', quiet);
  await clientA.connect();
  const a = new RedisJobStore({
    // (node-redis' createClient() type differs from the store's under exactOptionalPropertyTypes)
    client: clientA as unknown as RedisClient,
    prefix,
    leaseMs: LEASE_MS,
    sweepIntervalMs: 0,
    commandTimeoutMs: 300,
    onError: quiet,
  });
  // C: an instance that dies (stops renewing, as a killed process does) with job `dead` running.
  const c = new RedisJobStore({ url: redis.url, prefix, leaseMs: LEASE_MS, sweepIntervalMs: 0 });
  try {
    const { job: live } = await a.create(job('live'));
    await c.create(job('dead'));
    await c.close();

    // The outage: Redis stops answering for longer than a lease (the length of the outage is the
    // scenario, not a wait for something to happen), and A loses its connection.
    redis.pause();
    clientA.destroy();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 500));
    redis.resume();
    const resumed = Date.now();
    // The scenario took place: on Redis' clock the live job's lease ran out during the outage.
    expect(await raw.pTTL(keys.lease('live'))).toBe(-2);

    // Redis is back, A is not yet: B's sweeper runs at least five more times meanwhile (each run,
    // a sweep or the probe it sends while it waits, calls EXISTS; only B calls it).
    const before = await commandCalls('exists');
    await until(
      'five runs of B’s sweeper',
      async () => (await commandCalls('exists')) >= before + 5,
      5_000,
    );
    // The live job is still running: no sweeper failed it while its instance was away.
    expect(await raw.hGet(keys.job('live'), 'status')).toBe('running');

    // A is back: it renews its lapsed lease within leaseMs / 3 and finishes the job.
    await clientA.connect();
    await until(
      'A to renew its lease',
      async () => (await raw.get(keys.lease('live'))) === a.instanceId,
      LEASE_MS,
    );
    const finished = await a.update('live', live.version, {
      status: 'completed',
      outputText: 'done',
    });
    expect(finished).toMatchObject({ ok: true, job: { status: 'completed' } });
    expect(await raw.hGet(keys.job('live'), 'status')).toBe('completed');

    // The dead instance's job is still reported worker_lost, once B's connection has answered
    // for a lease: at most about one leaseMs after Redis came back.
    await until('B to report the dead job', () => reported.length > 0, 2 * LEASE_MS + 2_000);
    const lostAfterMs = Date.now() - resumed;
    expect(reported.map((lost) => [lost.jobId, lost.status, lost.error?.code])).toEqual([
      ['dead', 'failed', 'worker_lost'],
    ]);
    expect(lostAfterMs).toBeGreaterThanOrEqual(LEASE_MS);
    // Plus B's reconnect back-off (up to about 1 s) and a sweep.
    expect(lostAfterMs).toBeLessThan(LEASE_MS + 2_500);
  } finally {
    await Promise.all([a.close(), b.close()]);
    clientA.destroy();
  }
}, 30_000);
