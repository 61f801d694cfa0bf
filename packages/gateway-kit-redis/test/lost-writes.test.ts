import { randomUUID } from 'node:crypto';
import type { StoredJob } from '@svc/gateway-kit/store';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisJobStore, type RedisJobStoreOptions } from '../src/index.ts';
import { KeyLayout } from '../src/key-layout.ts';
import { eventually } from './gateway-processes.ts';
import { newJob } from './new-job.ts';
import { type RedisClock, redisClock } from './redis-clock.ts';
import { type RedisProxy, snapshot, startRedisProxy } from './redis-proxy.ts';
import { startRedis, type TestRedis } from './redis-server.ts';

// Writes whose loss would send a callback twice, lost the ways a primary's failover loses them:
// the connection cut before the write reached Redis, or cut after it, before its WAIT answered,
// with Redis then holding what it held before the write (what a promoted replica that missed the
// write holds). Each is sent again once Redis answers, so nothing is sent twice.
const quiet = (): void => {};
const LEASE_MS = 1_000;

let redis: TestRedis;
let replica: TestRedis;
let raw: ReturnType<typeof createClient>;
let clock: RedisClock;
let proxy: RedisProxy;
const stores: RedisJobStore[] = [];

beforeAll(async () => {
  // A primary and its replica, so that WAIT answers as on a deployment with waitForReplicas.
  [redis, replica] = await Promise.all([startRedis(), startRedis()]);
  raw = createClient({ url: redis.url });
  await raw.connect();
  clock = redisClock(raw);
  const follower = createClient({ url: replica.url });
  await follower.connect();
  await follower.replicaOf('127.0.0.1', redis.port);
  follower.destroy();
  await eventually(
    async () => ((await raw.wait(1, 100)) === 1 ? true : undefined),
    10_000,
    'the replica to follow',
  );
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await proxy?.close();
});
afterAll(async () => {
  raw.destroy();
  await Promise.all([redis.stop(), replica.stop()]);
});

/** One deployment (a prefix, one bucket): `a` reaches Redis through the proxy, `b` directly. */
async function deployment(options: RedisJobStoreOptions = {}) {
  proxy = await startRedisProxy(redis.port);
  const prefix = `lw:${randomUUID()}:`;
  const settings: RedisJobStoreOptions = {
    prefix,
    buckets: 1,
    leaseMs: LEASE_MS,
    sweepIntervalMs: 0,
    commandTimeoutMs: 500,
    onError: quiet,
    ...options,
  };
  const a = new RedisJobStore({ ...settings, url: proxy.url });
  const b = new RedisJobStore({ ...settings, url: redis.url });
  stores.push(a, b);
  const base = new KeyLayout(prefix, 1).base(0);
  return { prefix, a, b, unannounced: `${base}unannounced`, outbox: `${base}cb:all` };
}

/** A job `store` ran to its end: in the unannounced set until the gateway announces it. */
async function finished(store: RedisJobStore, jobId: string): Promise<void> {
  const { job } = await store.create(newJob(jobId, 'running'));
  await store.update(jobId, job.version, { status: 'completed', outputText: 'done' });
}

/** The jobs `store`'s sweep reports as nobody's, once their lease-long grace has passed. */
async function reportedAfterGrace(store: RedisJobStore): Promise<string[]> {
  const reported: string[] = [];
  const stop = store.onWorkerLost((job: StoredJob) => reported.push(job.jobId));
  await clock.elapse(LEASE_MS + 50);
  await store.sweepUnannounced();
  stop();
  return reported;
}

describe('a job end announced while the connection is lost', () => {
  it('sent again once Redis answers: the job is not reported (its callback not sent) a second time', async () => {
    const { a, b, unannounced } = await deployment();
    await finished(a, 'j1');
    expect(await raw.zCard(unannounced)).toBe(1);
    const dropped = proxy.dropOn('ZREM');
    await expect(a.announced('j1')).rejects.toMatchObject({ retryable: true });
    await dropped;
    await eventually(
      async () => ((await raw.zCard(unannounced)) === 0 ? true : undefined),
      3_000,
      'the announcement to land',
    );
    expect(await reportedAfterGrace(b)).toEqual([]);
  });

  it('with waitForReplicas, one whose WAIT got no answer is sent again: a failover that lost it does not have the job reported again', async () => {
    const { prefix, a, b, unannounced } = await deployment({
      waitForReplicas: { replicas: 1, timeoutMs: 50 },
    });
    await finished(a, 'j2');
    const before = await snapshot(raw, prefix);
    const dropped = proxy.dropOn('WAIT', before);
    // The ZREM stands on the primary; only its WAIT went unanswered: no failure to report.
    await expect(a.announced('j2')).resolves.toBeUndefined();
    await dropped;
    expect(await raw.zCard(unannounced)).toBe(1); // what the promoted replica holds
    await eventually(
      async () => ((await raw.zCard(unannounced)) === 0 ? true : undefined),
      3_000,
      'the announcement to land again',
    );
    expect(await reportedAfterGrace(b)).toEqual([]);
  });
});

describe('with waitForReplicas, a job created whose WAIT got no answer', () => {
  it('is created again before the caller learns of it: a failover that lost it does not leave an accepted job reading 404', async () => {
    const { prefix, a, b } = await deployment({
      waitForReplicas: { replicas: 1, timeoutMs: 50 },
    });
    const before = await snapshot(raw, prefix); // no job yet
    const dropped = proxy.dropOn('WAIT', before);
    const { created, job } = await a.create(newJob('j6', 'running'));
    await dropped;
    expect(created).toBe(true);
    expect(await b.get('j6')).toMatchObject({ jobId: 'j6', status: 'running', version: 1 });
    // It runs to its end on the instance that created it.
    expect(await a.update('j6', job.version, { status: 'completed' })).toMatchObject({ ok: true });
    expect((await b.get('j6'))?.status).toBe('completed');
  });
});

describe('with waitForReplicas, a job end whose WAIT got no answer', () => {
  it.each([
    ['finished', 'completed'],
    ['cancelled', 'cancelled'],
  ] as const)(
    '%s: written again, so a failover that lost it does not end the job as worker_lost',
    async (_, status) => {
      const { prefix, a, b } = await deployment({
        waitForReplicas: { replicas: 1, timeoutMs: 50 },
      });
      const { job } = await a.create(newJob('j5', 'running'));
      const before = await snapshot(raw, prefix);
      const dropped = proxy.dropOn('WAIT', before);
      const ended =
        status === 'cancelled'
          ? await a.requestCancel('j5')
          : await a.update('j5', job.version, { status, outputText: 'done' });
      expect(ended).toMatchObject({ ok: true, job: { status } });
      await dropped;
      expect((await b.get('j5'))?.status).toBe('running'); // what the promoted replica holds
      await eventually(
        async () => ((await b.get('j5'))?.status === status ? true : undefined),
        3_000,
        'the job end to be written again',
      );
      // Past the lease a's instance no longer renews: no sweep fails the job.
      await clock.elapse(LEASE_MS + 50);
      expect(await b.sweepExpiredLeases()).toEqual([]);
      expect((await b.get('j5'))?.status).toBe(status);
    },
  );
});

describe('with waitForReplicas, a callback entry whose WAIT got no answer', () => {
  const entry = {
    webhookId: 'job_j3_completed',
    url: 'https://hooks.example.com/jobs',
    payload: '{}',
  };

  it('its completion is sent again: an entry a failover brought back is deleted, not offered again', async () => {
    const { prefix, a, b, outbox } = await deployment({
      waitForReplicas: { replicas: 1, timeoutMs: 50 },
    });
    const stored = await a.callbackOutbox.enqueue(entry);
    if (typeof stored !== 'object') throw new Error(`not stored: ${stored}`);
    const before = await snapshot(raw, prefix);
    const dropped = proxy.dropOn('WAIT', before);
    await expect(a.callbackOutbox.complete(entry.webhookId, stored.claim)).resolves.toBeUndefined();
    await dropped;
    expect(await raw.zCard(outbox)).toBe(1); // delivered, yet back with its claim
    await eventually(
      async () => ((await raw.zCard(outbox)) === 0 ? true : undefined),
      3_000,
      'the completion to land again',
    );
    await clock.elapse(LEASE_MS + 50);
    expect(await b.callbackOutbox.claimDue(10)).toEqual([]);
  });

  it('claimed, it is not attempted by the instance whose claim may be lost: the instance holding it after the failover delivers it, once', async () => {
    const { prefix, a, b } = await deployment({
      waitForReplicas: { replicas: 1, timeoutMs: 50 },
    });
    const stored = await b.callbackOutbox.enqueue(entry);
    if (typeof stored !== 'object') throw new Error(`not stored: ${stored}`);
    await b.callbackOutbox.reschedule(entry.webhookId, stored.claim, 0, 0); // due now, unclaimed
    const before = await snapshot(raw, prefix);
    const dropped = proxy.dropOn('WAIT', before);
    expect(await a.callbackOutbox.claimDue(10)).toEqual([]);
    await dropped;
    // The promoted replica never saw a's claim: the entry is due, and one instance takes it.
    expect((await b.callbackOutbox.claimDue(10)).map(({ webhookId }) => webhookId)).toEqual([
      entry.webhookId,
    ]);
    // a, connected again, finds nothing either.
    expect(
      await eventually(() => a.callbackOutbox.claimDue(10).catch(() => undefined), 3_000, 'a'),
    ).toEqual([]);
  });
});
