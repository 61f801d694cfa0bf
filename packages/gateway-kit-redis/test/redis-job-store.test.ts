import { randomUUID } from 'node:crypto';
import { isJobQuotaError, isJobStoreFullError, type NewJob } from '@svc/gateway-kit/store';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  isStoreUnavailableError,
  RedisJobStore,
  type RedisJobStoreOptions,
  StoreUnavailableError,
} from '../src/index.ts';
import { DEFAULT_BUCKETS, KeyLayout } from '../src/key-layout.ts';
import { newJob } from './new-job.ts';
import { startRedis, type TestRedis } from './redis-server.ts';
import { cancelChannels, waitForSubscribers } from './subscribers.ts';

/** Where a store with the default buckets keeps its keys. */
const layout = (prefix: string, buckets = DEFAULT_BUCKETS): KeyLayout =>
  new KeyLayout(prefix, buckets);

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;
const stores: RedisJobStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  raw.on('error', () => {}); // the outage test kills the server under this client too
  await raw.connect();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  raw.destroy();
  await redis.stop();
});

/** Stores of one test share a prefix: they are instances of one deployment. */
function deployment(options: RedisJobStoreOptions = {}) {
  const prefix = `t:${randomUUID()}:`;
  return {
    prefix,
    instance(overrides: RedisJobStoreOptions = {}): RedisJobStore {
      // 64 buckets, as on a cluster: the key-layout code path (one node defaults to one bucket).
      const store = new RedisJobStore({
        url: redis.url,
        prefix,
        buckets: DEFAULT_BUCKETS,
        ...options,
        ...overrides,
      });
      stores.push(store);
      return store;
    },
  };
}

const job = newJob;

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Lets `ms` of real time pass, for a test asserting that something does NOT happen in that time
 * (a second report or call, a live job failed). No event tells that it did not, so the window is
 * fixed; each caller sizes it past what could make it happen (a lease running out on Redis' clock,
 * a report claim lapsing, a few sweeps or polls), with margin. Redis' clock cannot be faked.
 */
function windowOf(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The lease of the tests where a live instance must keep its jobs: renewed every 200 ms, so only
 * an event-loop stall of about 400 ms (not a loaded machine's usual hiccup) could let it lapse.
 */
const LIVE_LEASE_MS = 600;

describe('across instances', () => {
  it('a job created on A is read and cancelled on B; A’s listener fires through pub/sub', async () => {
    // Polling would take ten minutes: within this test only the subscription can deliver.
    const app = deployment({ cancelPollIntervalMs: 600_000 });
    const a = app.instance();
    const b = app.instance();
    const { job: created } = await a.create(job('j1', 'running'));
    expect(await b.get('j1')).toEqual(created);
    let cancelledAt = 0;
    a.onCancel('j1', () => {
      cancelledAt = Date.now();
    });
    await waitForSubscribers(raw, cancelChannels(app.prefix, false), 'A to subscribe');
    const started = Date.now();
    const result = await b.requestCancel('j1');
    expect(result).toMatchObject({ ok: true, job: { status: 'cancelled', cancelRequested: true } });
    await until(() => cancelledAt > 0, 1_000);
    expect(cancelledAt - started).toBeLessThan(200);
  });

  it('a lost cancel message still reaches the listener through polling', async () => {
    const app = deployment({ cancelPollIntervalMs: 200 });
    const a = app.instance();
    await a.create(job('j2', 'running'));
    let calls = 0;
    a.onCancel('j2', () => calls++);
    // The subscription is up, yet no message comes: only the poll can deliver.
    await waitForSubscribers(raw, cancelChannels(app.prefix, false), 'A to subscribe');
    // Cancelled behind the store's back, without a PUBLISH: as if the message were lost.
    await raw.hSet(layout(app.prefix).job('j2'), { status: 'cancelled', cancelRequested: '1' });
    await until(() => calls === 1, 1_000);
    // Two and a half more poll intervals: a listener not released would be called again.
    await windowOf(500);
    expect(calls).toBe(1);
    expect(a.listenerCount).toBe(0);
  });
});

describe('leases', () => {
  it('creating a job leases it to this instance with a PX expiry, and running it keeps the lease', async () => {
    const app = deployment({ leaseMs: 1_000 });
    const a = app.instance();
    const { job: queued } = await a.create(job('l1'));
    expect(await raw.get(layout(app.prefix).lease('l1'))).toBe(a.instanceId);
    await a.update('l1', queued.version, { status: 'running' });
    expect(await raw.get(layout(app.prefix).lease('l1'))).toBe(a.instanceId);
    const ttl = await raw.pTTL(layout(app.prefix).lease('l1'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);
    expect(a.leasedJobs).toEqual(['l1']);
  });

  it('a live instance keeps renewing: the sweeper leaves its running job alone', async () => {
    const app = deployment({ leaseMs: LIVE_LEASE_MS, sweepIntervalMs: 100 });
    const a = app.instance();
    const b = app.instance();
    await a.create(job('l2', 'running'));
    // 4 lease lengths: unrenewed, the lease would lapse and B's sweeper (sweeping once Redis has
    // answered it for a lease) fail the job.
    await windowOf(4 * LIVE_LEASE_MS);
    expect(await b.sweepExpiredLeases()).toEqual([]);
    expect((await b.get('l2'))?.status).toBe('running');
  });

  it('a dead instance’s running job is failed with worker_lost once the lease lapses', async () => {
    const app = deployment({ leaseMs: 300, sweepIntervalMs: 100 });
    const a = app.instance();
    const b = app.instance();
    const { job: running } = await a.create(job('l3', 'running'));
    const died = Date.now();
    await a.close(); // renewals stop, as when the process is killed
    await until(async () => (await b.get('l3'))?.status === 'failed', 2_000);
    expect(Date.now() - died).toBeGreaterThanOrEqual(250);
    const failed = await b.get('l3');
    expect(failed).toMatchObject({
      status: 'failed',
      version: running.version + 1,
      error: { code: 'worker_lost', retryable: true },
    });
    // Finished like any job: retention applies and it left the active set.
    expect(await raw.pTTL(layout(app.prefix).job('l3'))).toBeGreaterThan(0);
    expect(await raw.sIsMember(`${layout(app.prefix).baseOf('l3')}active`, 'l3')).toBe(0);
  });

  it('a job whose hash vanished leaves the active set at the next sweep and no longer fills the store', async () => {
    // One bucket holding one job at most: the vanished job would keep the store full.
    const app = deployment({ buckets: 1, maxJobs: 1, sweepIntervalMs: 0 });
    const a = app.instance();
    await a.create(job('v1', 'running'));
    await expect(a.create(job('v2', 'running'))).rejects.toSatisfy(isJobStoreFullError);
    // Gone without a terminal write (an eviction policy, a hand-run DEL).
    await raw.del(layout(app.prefix, 1).job('v1'));
    expect(await a.sweepExpiredLeases()).toEqual([]);
    expect(await raw.sCard(`${layout(app.prefix, 1).baseOf('v1')}active`)).toBe(0);
    expect((await a.create(job('v2', 'running'))).created).toBe(true);
  });

  it('reports each job it failed as worker_lost to onWorkerLost listeners, once across instances', async () => {
    const app = deployment({ leaseMs: 300, sweepIntervalMs: 100 });
    const a = app.instance();
    const b = app.instance();
    const c = app.instance();
    const reported: string[] = [];
    // As the gateway does: report, then announce the job's end handed over.
    for (const [name, store] of [
      ['b', b],
      ['c', c],
    ] as const)
      store.onWorkerLost((lost) => {
        reported.push(`${name}:${lost.jobId}:${lost.status}:${lost.error?.code}`);
        void store.announced(lost.jobId);
      });
    await a.create(job('l4', 'running'));
    await a.close();
    await until(() => reported.length > 0, 2_000);
    // Give the other sweeper a few more rounds: it must not report the same job again, not even
    // once the reporter's claim on it (leaseMs) has lapsed.
    await windowOf(300 + 2 * 100);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^[bc]:l4:failed:worker_lost$/);
  });

  it('reports a job finished but never announced (its instance died in between) once, after leaseMs', async () => {
    const app = deployment({ leaseMs: 300, sweepIntervalMs: 50 });
    const a = app.instance();
    const b = app.instance();
    const c = app.instance();
    const reported: string[] = [];
    for (const [name, store] of [
      ['b', b],
      ['c', c],
    ] as const)
      store.onWorkerLost((lost) => {
        reported.push(`${name}:${lost.jobId}:${lost.status}`);
        void store.announced(lost.jobId);
      });
    const { job: one } = await a.create(job('u1', 'running'));
    const { job: two } = await a.create(job('u2', 'running'));
    await a.create(job('u3'));
    const finishedAt = Date.now();
    await a.update('u1', one.version, { status: 'completed', outputText: 'done' });
    await a.update('u2', two.version, { status: 'completed', outputText: 'done' });
    await a.requestCancel('u3');
    await a.announced('u2'); // u2's end was handed over; u1's and u3's never were
    await a.close();
    await until(() => reported.length >= 2, 3_000);
    expect(Date.now() - finishedAt).toBeGreaterThanOrEqual(250);
    // A few more sweeps, past the reporters' claims (leaseMs): nothing is reported twice, and u2
    // never.
    await windowOf(300 + 4 * 50);
    expect(reported.map((line) => line.slice(2)).sort()).toEqual(['u1:completed', 'u3:cancelled']);
    const bases = ['u1', 'u2', 'u3'].map((id) => layout(app.prefix).baseOf(id));
    for (const base of bases) expect(await raw.zCard(`${base}unannounced`)).toBe(0);
  });

  it('fails a queued job whose instance died before starting it, and reports it once', async () => {
    const app = deployment({ leaseMs: 300, sweepIntervalMs: 50 });
    const a = app.instance();
    const b = app.instance();
    const reported: string[] = [];
    b.onWorkerLost((lost) => {
      reported.push(`${lost.jobId}:${lost.status}:${lost.error?.code}`);
      void b.announced(lost.jobId);
    });
    await a.create(job('q1')); // accepted, never started: the instance dies first
    expect(a.leasedJobs).toEqual(['q1']);
    await a.close();
    await until(() => reported.length > 0, 3_000);
    // Past the report claim (leaseMs) and a few sweeps: it is not reported again.
    await windowOf(300 + 4 * 50);
    expect(reported).toEqual(['q1:failed:worker_lost']);
  });

  it('keeps a live instance’s queued job leased: the sweeper leaves it alone', async () => {
    const app = deployment({ leaseMs: LIVE_LEASE_MS, sweepIntervalMs: 50 });
    const a = app.instance();
    app.instance(); // a sweeper
    await a.create(job('q2'));
    // 4 lease lengths: unrenewed, the lease would lapse and the sweeper fail the job.
    await windowOf(4 * LIVE_LEASE_MS);
    expect((await a.get('q2'))?.status).toBe('queued');
  });

  it('drops the unannounced entry of a job that expired, even with nobody to report to', async () => {
    const app = deployment({ leaseMs: 50, retentionMs: 100, sweepIntervalMs: 50 });
    const a = app.instance();
    const { job: one } = await a.create(job('x1', 'running'));
    await a.update('x1', one.version, { status: 'failed' });
    const unannounced = `${layout(app.prefix).baseOf('x1')}unannounced`;
    expect(await raw.zCard(unannounced)).toBe(1);
    await until(async () => (await raw.zCard(unannounced)) === 0, 3_000);
    expect(await raw.exists(layout(app.prefix).job('x1'))).toBe(0);
  });

  it('finishing or cancelling a job releases its lease', async () => {
    const app = deployment();
    const a = app.instance();
    const { job: one } = await a.create(job('l4', 'running'));
    await a.create(job('l5', 'running'));
    await a.update('l4', one.version, { status: 'completed' });
    await a.requestCancel('l5');
    expect(await raw.exists([layout(app.prefix).lease('l4'), layout(app.prefix).lease('l5')])).toBe(
      0,
    );
    expect(a.leasedJobs).toEqual([]);
    for (const id of ['l4', 'l5'])
      expect(await raw.sCard(`${layout(app.prefix).baseOf(id)}active`)).toBe(0);
  });
});

/** Calls of one Redis command so far (INFO commandstats). */
async function callsOf(command: string): Promise<number> {
  const stats = await raw.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

describe("jobs' claims on their owners' budgets", () => {
  const claim = { maxActive: 1, units: 1, maxUnits: 10, ttlMs: 60_000 };
  const refusal = (store: RedisJobStore, input: NewJob, taking = claim) =>
    store.create(input, taking).then(
      () => undefined,
      (error: unknown) => (isJobQuotaError(error) ? error.quota : Promise.reject(error)),
    );

  it("one bucket claims; several buckets (a cluster's layout) leave the claims to the gateway", async () => {
    const app = deployment();
    const one = app.instance({ buckets: 1 });
    expect(one.claimsJobQuotas).toBe(true);
    const defaults = new RedisJobStore({ url: redis.url });
    stores.push(defaults);
    expect(defaults.claimsJobQuotas).toBe(true); // the one-node default
    const several = app.instance();
    expect(several.claimsJobQuotas).toBe(false);
    await expect(several.create(job('q0'), claim)).rejects.toThrow(TypeError);
    expect(await several.get('q0')).toBeUndefined();
  });

  it('refuses a claim that is not whole positive numbers, writing nothing', async () => {
    const store = deployment().instance({ buckets: 1 });
    for (const bad of [{ maxActive: 0 }, { units: 1.5 }, { maxUnits: -1 }, { ttlMs: Number.NaN }])
      await expect(store.create(job('q1'), { ...claim, ...bad })).rejects.toThrow(TypeError);
    expect(await store.get('q1')).toBeUndefined();
  });

  it("a claim is the store's own: get() shows no trace of it, and the finished job keeps none", async () => {
    const app = deployment();
    const store = app.instance({ buckets: 1 });
    const { job: created } = await store.create(job('q2', 'running'), claim);
    expect(await store.get('q2')).toEqual(created);
    expect(Object.keys(created)).not.toContain('quota');
    const done = await store.update('q2', created.version, { status: 'completed' });
    expect(done.ok && done.job).toEqual(await store.get('q2'));
    const key = new KeyLayout(app.prefix, 1).job('q2');
    expect(await raw.hExists(key, 'quota')).toBe(0);
    // Both budget sets are gone with their last member.
    expect(await raw.keys(`${app.prefix}*quota*`)).toEqual([]);
  });

  it('a job whose instance died is failed by the sweep, which gives its budgets back', async () => {
    const app = deployment({ buckets: 1, leaseMs: 300, sweepIntervalMs: 100 });
    const a = app.instance();
    const b = app.instance();
    await a.create(job('q3', 'running'), claim);
    expect(await refusal(b, job('q3b'), claim)).toBe('activeJobs');
    await a.close(); // renewals stop, as when the process is killed
    await until(async () => (await b.get('q3'))?.status === 'failed', 2_000);
    expect(await refusal(b, job('q3c'), claim)).toBeUndefined();
  });

  it('a claim whose job never ends frees itself after ttlMs', async () => {
    const app = deployment({ buckets: 1 });
    const store = app.instance();
    const started = Date.now();
    await store.create(job('q4', 'running'), { ...claim, ttlMs: 200 });
    expect(await refusal(store, job('q4b'), claim)).toBe('activeJobs');
    // The job itself still runs; its claim lapsed (as when its end was never written).
    await until(
      async () => (await refusal(store, job(`q4-${Date.now()}`), claim)) === undefined,
      2_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect((await store.get('q4'))?.status).toBe('running');
  });

  it('held units: a job is refused past maxUnits with heldBytes, and its units come back at its end', async () => {
    const store = deployment().instance({ buckets: 1 });
    const heavy = { maxActive: 10, units: 7, maxUnits: 10, ttlMs: 60_000 };
    const { job: first } = await store.create(job('q5', 'running'), heavy);
    expect(await refusal(store, job('q5b'), heavy)).toBe('heldBytes');
    expect(await refusal(store, job('q5c'), { ...heavy, units: 3 })).toBeUndefined();
    await store.update('q5', first.version, { status: 'failed' });
    expect(await refusal(store, job('q5d'), heavy)).toBeUndefined();
  });
});

describe('writes on top of its own', () => {
  it('answers an update of a job it wrote last with the job as Redis holds it, without reading it back', async () => {
    const a = deployment().instance();
    const created = await a.create({
      ...job('w1', 'running'),
      payload: { callbacks: { jobResultUrl: 'https://example.test/cb' }, heldUnits: 3 },
      request: '{"input":{"n":1}}',
    });
    const reads = await callsOf('hgetall');
    const progress = await a.update('w1', created.job.version, {
      outputText: 'half way',
      data: { rows: [1, 2], empty: [] },
    });
    expect(progress).toEqual({ ok: true, job: await a.get('w1') });
    const done = await a.update('w1', 2, {
      status: 'completed',
      outputText: 'done',
      machineSummary: 'ok',
    });
    const stored = await a.get('w1');
    expect(done).toEqual({ ok: true, job: stored });
    // The finished job keeps none of the caller's request; its data stays from the earlier write.
    expect(stored).not.toHaveProperty('request');
    expect(stored).toMatchObject({ status: 'completed', version: 3, data: { rows: [1, 2] } });
    // Two get() calls read it; the updates did not.
    expect((await callsOf('hgetall')) - reads).toBe(2);
  });

  it('shares nothing between its answers: changing one leaves the next as Redis holds it', async () => {
    const a = deployment().instance();
    const created = await a.create({ ...job('w4', 'running'), payload: { callbacks: {} } });
    const answer = created.job as { payload?: Record<string, unknown>; actionName: string };
    answer.payload!.callbacks = { jobResultUrl: 'https://attacker.test' };
    answer.actionName = 'Changed';
    const progress = await a.update('w4', 1, { data: { n: 1 } });
    expect(progress).toEqual({ ok: true, job: await a.get('w4') });
    if (progress.ok) (progress.job.data as { n: number }).n = 2;
    const done = await a.update('w4', 2, { status: 'completed' });
    expect(done).toEqual({ ok: true, job: await a.get('w4') });
    expect(done.ok && done.job).toMatchObject({
      actionName: 'Export',
      payload: { callbacks: {} },
      data: { n: 1 },
    });
  });

  it('answers what Redis holds when another instance wrote the job since', async () => {
    const app = deployment();
    const a = app.instance();
    const b = app.instance();
    await a.create(job('w2', 'running'));
    expect((await b.update('w2', 1, { outputText: 'from b' })).ok).toBe(true);
    const stale = await a.update('w2', 1, { outputText: 'from a' });
    expect(stale).toEqual({ ok: false, reason: 'conflict', job: await b.get('w2') });
    const done = await a.update('w2', 2, { status: 'completed' });
    expect(done).toEqual({ ok: true, job: await a.get('w2') });
    expect(done.ok && done.job.outputText).toBe('from b');
  });

  it('answers what Redis holds when the job under that id and version is another one (a later time)', async () => {
    const app = deployment();
    const a = app.instance();
    await a.create(job('w3', 'running'));
    // The same id and version, written at another time: the job was made again under its id.
    const key = layout(app.prefix).job('w3');
    const updatedAt = Number(await raw.hGet(key, 'updatedAt'));
    await raw.hSet(key, { actionName: JSON.stringify('Other'), updatedAt: String(updatedAt + 1) });
    const done = await a.update('w3', 1, { status: 'completed' });
    expect(done).toEqual({ ok: true, job: await a.get('w3') });
    expect(done.ok && done.job.actionName).toBe('Other');
  });

  it('announces the jobs that end within one turn of the event loop with one command', async () => {
    const app = deployment({ buckets: 1 });
    const a = app.instance();
    const ids = Array.from({ length: 20 }, (_, i) => `an${i}`);
    for (const id of ids) await a.create(job(id, 'running'));
    await Promise.all(ids.map((id) => a.update(id, 1, { status: 'completed' })));
    const unannounced = `${new KeyLayout(app.prefix, 1).base(0)}unannounced`;
    expect(await raw.zCard(unannounced)).toBe(20);
    const removals = await callsOf('zrem');
    await Promise.all(ids.map((id) => a.announced(id)));
    expect(await raw.zCard(unannounced)).toBe(0);
    expect((await callsOf('zrem')) - removals).toBe(1);
    // Later announcements go out as they come.
    await a.announced('an0');
    expect((await callsOf('zrem')) - removals).toBe(2);
  });

  it('an announcement made just before close() still goes out, without an error', async () => {
    const app = deployment({ buckets: 1 });
    const a = app.instance();
    await a.create(job('ac1', 'running'));
    await a.update('ac1', 1, { status: 'completed' });
    const unannounced = `${new KeyLayout(app.prefix, 1).base(0)}unannounced`;
    expect(await raw.zCard(unannounced)).toBe(1);
    const announcing = a.announced('ac1');
    await a.close();
    await expect(announcing).resolves.toBeUndefined();
    expect(await raw.zCard(unannounced)).toBe(0);
  });
});

describe('keys', () => {
  it('uses only keys under its prefix; finished jobs expire, active ones do not', async () => {
    const app = deployment({ retentionMs: 60_000 });
    const a = app.instance();
    const { job: done } = await a.create(job('k1', 'running'));
    await a.create(job('k2'));
    await a.update('k1', done.version, { status: 'completed' });
    const keys = await raw.keys(`${app.prefix}*`);
    const at = layout(app.prefix);
    const [k1, k2] = [at.baseOf('k1'), at.baseOf('k2')];
    const expected = new Set([
      // k1 finished: its job, its bucket's finish order, the principal's finished jobs in the
      // bucket, the principals ranked by how many they keep there, and the unannounced set;
      ...['job:k1', 'finished', 'finished:"owner-1"', 'finished:owners', 'seq', 'unannounced'].map(
        (key) => `${k1}${key}`,
      ),
      // the principal's finished-jobs index across buckets (its exact share), in its own bucket;
      at.kept('"owner-1"'),
      // k2 is queued: leased to its instance until it ends.
      ...['job:k2', 'lease:k2', 'active'].map((key) => `${k2}${key}`),
    ]);
    expect(keys.sort()).toEqual([...expected].sort());
    for (const key of [`${k1}finished:"owner-1"`, `${k1}finished:owners`, at.kept('"owner-1"')])
      expect(await raw.pTTL(key)).toBeGreaterThan(59_000);
    await a.announced('k1');
    expect(await raw.exists(`${k1}unannounced`)).toBe(0);
    const ttl = await raw.pTTL(layout(app.prefix).job('k1'));
    expect(ttl).toBeGreaterThan(59_000);
    expect(await raw.pTTL(layout(app.prefix).job('k2'))).toBe(-1);
  });

  it('finished jobs whose retention ran out leave the finish index when the store is full, and never cost a live job its place', async () => {
    const app = deployment({ buckets: 1, maxJobs: 3, retentionMs: 100, sweepIntervalMs: 0 });
    const a = app.instance();
    const at = new KeyLayout(app.prefix, 1);
    const finished = `${at.base(0)}finished`;
    for (const id of ['e1', 'e2', 'e3']) {
      const { job: running } = await a.create(job(id, 'running'));
      await a.update(id, running.version, { status: 'completed' });
    }
    await vi.waitFor(
      async () => expect(await raw.exists(['e1', 'e2', 'e3'].map((id) => at.job(id)))).toBe(0),
      {
        timeout: 5_000,
        interval: 50,
      },
    );
    // Expired, but still counted in the finish index until the store is full.
    expect(await raw.zCard(finished)).toBe(3);
    for (const id of ['l1', 'l2', 'l3'])
      expect((await a.create(job(id, 'running'))).created).toBe(true);
    expect(await raw.zCard(finished)).toBe(0);
    await expect(a.create(job('l4', 'running'))).rejects.toSatisfy(isJobStoreFullError);
    for (const id of ['l1', 'l2', 'l3']) expect((await a.get(id))?.status).toBe('running');
  });

  it('defaults to the svc:gw: prefix and, on one node, one bucket (exact bounds, no cross-bucket index)', async () => {
    const store = new RedisJobStore({ url: redis.url, sweepIntervalMs: 0 });
    stores.push(store);
    const id = `default-${randomUUID()}`;
    await store.create(job(id));
    const key = new KeyLayout('svc:gw:', 1).job(id);
    expect(await raw.exists(key)).toBe(1);
    expect(await raw.hExists(key, 'kept')).toBe(0);
    expect(await raw.exists(layout('svc:gw:').job(id))).toBe(0);
  });
});

describe('when Redis is down', () => {
  it('calls reject at once with a retryable StoreUnavailableError, and work again after a restart', async () => {
    const app = deployment({ cancelPollIntervalMs: 200 });
    const a = app.instance({ onError: () => {} });
    const { job: running } = await a.create(job('o1', 'running'));
    let cancelled = 0;
    a.onCancel('o1', () => cancelled++);
    await redis.kill();
    try {
      const started = Date.now();
      const error = await a.get('o1').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(isStoreUnavailableError(error)).toBe(true);
      expect(error).toMatchObject({ name: 'StoreUnavailableError', retryable: true });
      expect(Date.now() - started).toBeLessThan(500);
      await expect(a.requestCancel('o1')).rejects.toMatchObject({ retryable: true });
      await expect(a.create(job('o2'))).rejects.toMatchObject({ retryable: true });
    } finally {
      await redis.start();
    }
    // Without persistence the data is gone; the store itself recovers.
    await until(
      async () => (await a.create(job('o3')).catch(() => undefined)) !== undefined,
      5_000,
    );
    expect((await a.get('o3'))?.status).toBe('queued');
    expect(running.status).toBe('running');
    expect(cancelled).toBe(0);
  });
});
