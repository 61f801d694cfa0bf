import * as fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { jobStoreConformance } from '../testing/job-store-conformance.ts';
import type { NewJob, StoredJob } from './job-store.ts';
import { isJobStoreFullError, JobStoreFullError } from './job-store-full-error.ts';
import { MemoryJobStore, type MemoryJobStoreOptions } from './memory-job-store.ts';

const silent = (): void => {};
let clock = Date.UTC(2025, 0, 1);

jobStoreConformance({
  name: 'MemoryJobStore',
  createStore: () => new MemoryJobStore({ onListenerError: silent }),
  test: { describe, it },
  fc,
  retention: {
    retentionMs: 60_000,
    advanceTime: (ms) => {
      clock += ms;
    },
    createStore: () =>
      new MemoryJobStore({ retentionMs: 60_000, now: () => clock, onListenerError: silent }),
  },
  bounds: {
    maxJobs: 5,
    createStore: () => new MemoryJobStore({ maxJobs: 5, onListenerError: silent }),
  },
});

function newJob(jobId: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    jobId,
    ownerId: 'owner-1',
    invocationId: `inv-${jobId}`,
    actionId: 'export-report',
    actionName: 'Export report',
    status: 'running',
    createdAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

async function finish(store: MemoryJobStore, job: StoredJob): Promise<StoredJob> {
  const result = await store.update(job.jobId, job.version, { status: 'completed' });
  if (!result.ok) throw new Error(`could not finish ${job.jobId}: ${result.reason}`);
  return result.job;
}

describe('MemoryJobStore', () => {
  const stores: MemoryJobStore[] = [];
  const open = (options: MemoryJobStoreOptions = {}): MemoryJobStore => {
    const store = new MemoryJobStore(options);
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  describe('options', () => {
    it.each([
      { maxJobs: 0 },
      { maxJobs: -1 },
      { maxJobs: 1.5 },
      { maxJobs: Number.NaN },
      { retentionMs: -1 },
      { retentionMs: Number.POSITIVE_INFINITY },
      { sweepIntervalMs: -1 },
    ])('rejects %o with a GatewayConfigError', (options) => {
      expect(() => new MemoryJobStore(options)).toThrow(GatewayConfigError);
    });

    it('stamps updatedAt from the injected clock on every write and keeps createdAt', async () => {
      let now = Date.UTC(2025, 5, 1, 12);
      const store = open({ now: () => now });
      const { job } = await store.create(newJob('a', { status: 'queued' }));
      expect(job.updatedAt).toBe('2025-06-01T12:00:00.000Z');
      now += 1_500;
      const result = await store.update('a', job.version, { status: 'running' });
      expect(result).toMatchObject({
        ok: true,
        job: { updatedAt: '2025-06-01T12:00:01.500Z', createdAt: '2025-01-01T00:00:00.000Z' },
      });
    });
  });

  describe('create', () => {
    it('refuses a job that starts in a terminal state and stores nothing', async () => {
      const store = open();
      const input = { ...newJob('a'), status: 'completed' } as unknown as NewJob;
      await expect(store.create(input)).rejects.toThrow(TypeError);
      expect(store.size).toBe(0);
    });

    it('refuses input that cannot be cloned and stores nothing', async () => {
      const store = open();
      const input = newJob('a', { data: { callback: () => 'not data' } });
      await expect(store.create(input)).rejects.toThrow(/could not be cloned/i);
      expect(store.size).toBe(0);
      expect(await store.get('a')).toBeUndefined();
    });

    it('ignores store-owned and unknown fields smuggled into the input', async () => {
      const store = open();
      const input = { ...newJob('a'), version: 99, cancelRequested: true, extra: 'x' } as NewJob;
      const { job } = await store.create(input);
      expect(job.version).toBe(1);
      expect(job.cancelRequested).toBe(false);
      expect(job).not.toHaveProperty('extra');
    });
  });

  describe('snapshots', () => {
    it('returns deeply frozen records', async () => {
      const store = open();
      const { job } = await store.create(newJob('a', { data: { nested: { list: [1] } } }));
      expect(Object.isFrozen(job)).toBe(true);
      expect(Object.isFrozen(job.data)).toBe(true);
      expect(Object.isFrozen((job.data as { nested: { list: number[] } }).nested.list)).toBe(true);
      expect(() => {
        (job as { status: string }).status = 'failed';
      }).toThrow(TypeError);
      expect((await store.get('a'))?.status).toBe('running');
    });
  });

  describe('retention sweep', () => {
    it('frees a finished job once retention has passed, without any further call, and never frees active jobs', async () => {
      vi.useFakeTimers({ now: Date.UTC(2025, 0, 1) });
      const store = open({ retentionMs: 10_000, sweepIntervalMs: 1_000 });
      await store.create(newJob('queued', { status: 'queued' }));
      await store.create(newJob('running'));
      await finish(store, (await store.create(newJob('done'))).job);
      expect(store.size).toBe(3);

      vi.advanceTimersByTime(9_999);
      expect(store.size).toBe(3);
      vi.advanceTimersByTime(1_001);
      expect(store.size).toBe(2); // `size` does not sweep: the timer did
      expect(await store.get('done')).toBeUndefined();

      vi.advanceTimersByTime(100_000);
      expect(await store.get('queued')).toMatchObject({ status: 'queued' });
      expect(await store.get('running')).toMatchObject({ status: 'running' });
    });

    it('runs its timer only while finished jobs exist, and close() clears it', async () => {
      vi.useFakeTimers({ now: Date.UTC(2025, 0, 1) });
      const store = open({ retentionMs: 5_000, sweepIntervalMs: 1_000 });
      const { job } = await store.create(newJob('a'));
      expect(vi.getTimerCount()).toBe(0);
      await finish(store, job);
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(6_000);
      expect(store.size).toBe(0);
      expect(vi.getTimerCount()).toBe(0);

      await finish(store, (await store.create(newJob('b'))).job);
      expect(vi.getTimerCount()).toBe(1);
      await store.close();
      expect(vi.getTimerCount()).toBe(0);
      await finish(store, (await store.create(newJob('c'))).job);
      expect(vi.getTimerCount()).toBe(0);
      expect((await store.get('c'))?.status).toBe('completed'); // still usable after close
    });

    it('with sweepIntervalMs 0 starts no timer and frees expired jobs on the next create', async () => {
      let now = 0;
      const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
      const store = open({ retentionMs: 1_000, sweepIntervalMs: 0, now: () => now });
      await finish(store, (await store.create(newJob('a'))).job);
      await finish(store, (await store.create(newJob('b'))).job);
      now = 1_000;
      expect(store.size).toBe(2);
      await store.create(newJob('c'));
      expect(store.size).toBe(1);
      expect(setIntervalSpy).not.toHaveBeenCalled();
    });

    it('does not keep the process alive (the timer is unref’d)', async () => {
      const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
      const store = open();
      await finish(store, (await store.create(newJob('a'))).job);
      expect(setIntervalSpy).toHaveBeenCalledTimes(1);
      const timer = setIntervalSpy.mock.results[0]?.value as { hasRef(): boolean };
      expect(timer.hasRef()).toBe(false);
    });
  });

  describe('capacity', () => {
    it('evicts the earliest-finished job first and rejects with JobStoreFullError when only active jobs remain', async () => {
      const store = open({ maxJobs: 3 });
      const a = (await store.create(newJob('a'))).job;
      await store.create(newJob('b'));
      const c = (await store.create(newJob('c'))).job;
      await finish(store, c);
      await finish(store, a);

      await store.create(newJob('d'));
      expect(await store.get('c')).toBeUndefined();
      expect(await store.get('a')).toBeDefined();
      await store.create(newJob('e'));
      expect(await store.get('a')).toBeUndefined();
      expect(store.size).toBe(3);

      const error = await store.create(newJob('f')).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JobStoreFullError);
      expect(isJobStoreFullError(error)).toBe(true);
      expect(error).toMatchObject({ name: 'JobStoreFullError', retryable: true, maxJobs: 3 });
      expect(store.size).toBe(3);
      expect(await store.get('f')).toBeUndefined();
    });

    it('keeps evicting correctly when the clock goes backwards (wall-clock adjustment)', async () => {
      let now = 100;
      const store = open({ maxJobs: 2, retentionMs: 60, sweepIntervalMs: 0, now: () => now });
      await finish(store, (await store.create(newJob('a'))).job); // finished at 100
      now = 50;
      await finish(store, (await store.create(newJob('b'))).job); // finished at 50, queued after a
      now = 111;
      expect(await store.get('b')).toBeUndefined(); // expired: removed out of finish order
      expect(await store.get('a')).toBeDefined();
      await store.create(newJob('c'));
      await store.create(newJob('d')); // evicts a, the only finished job left
      expect(await store.get('a')).toBeUndefined();
      expect(store.size).toBe(2);
      await expect(store.create(newJob('e'))).rejects.toBeInstanceOf(JobStoreFullError);
    });

    it('budgets bytes: large finished jobs are evicted first, active ones are never, the total stays under maxBytes', async () => {
      const store = open({ maxBytes: 400_000 });
      const payload = { blob: 'x'.repeat(40_000) };
      const active = (await store.create(newJob('active', { payload }))).job;
      for (let i = 0; i < 20; i++) {
        const { job } = await store.create(newJob(`big-${i}`, { payload }));
        await finish(store, job);
        expect(store.bytes).toBeLessThanOrEqual(400_000);
      }
      expect(await store.get(active.jobId)).toBeDefined();
      expect(await store.get('big-0')).toBeUndefined();
      expect(await store.get('big-19')).toBeDefined();
      // Only active jobs left and no room: refused, nothing stored.
      const full = open({ maxBytes: 200_000 });
      await full.create(newJob('a', { payload }));
      await full.create(newJob('b', { payload }));
      await expect(full.create(newJob('c', { payload }))).rejects.toBeInstanceOf(JobStoreFullError);
      expect(full.size).toBe(2);
    });

    it("retention per principal: 100 000 short jobs of one principal leave another's finished job readable", async () => {
      const store = open();
      const victim = await finish(store, (await store.create(newJob('b-1', { ownerId: 'b' }))).job);
      for (let i = 0; i < 100_000; i++) {
        const { job } = await store.create(newJob(`a-${i}`, { ownerId: 'a' }));
        if (i % 2 === 0) await store.requestCancel(job.jobId);
        else await finish(store, job);
      }
      expect(await store.get('b-1')).toEqual(victim);
      // A keeps its newest 1 000 (the default share), nothing older.
      expect(await store.get('a-99999')).toBeDefined();
      expect(await store.get('a-99000')).toBeDefined();
      expect(await store.get('a-98999')).toBeUndefined();
      expect(store.size).toBe(1_001);
    }, 30_000); // ~2 s alone; a loaded CI machine may take several times that

    it("a job an approval links to is kept apart: its principal's own churn does not evict it", async () => {
      const store = open({ maxFinishedPerOwner: 10 });
      const linked = await finish(
        store,
        (await store.create(newJob('approved', { ownerId: 'a', approvalId: 'apr_1' }))).job,
      );
      for (let i = 0; i < 100; i++)
        await finish(store, (await store.create(newJob(`a-${i}`, { ownerId: 'a' }))).job);
      expect(await store.get('approved')).toEqual(linked);
      expect(await store.get('a-89')).toBeUndefined();
      expect(await store.get('a-90')).toBeDefined();
    });

    it('when the store is full, the principal keeping the most finished jobs loses its oldest first', async () => {
      const store = open({ maxJobs: 6, maxFinishedPerOwner: 10 });
      for (const id of ['b-1', 'a-1', 'a-2', 'a-3', 'c-1'])
        await finish(store, (await store.create(newJob(id, { ownerId: id.slice(0, 1) }))).job);
      await store.create(newJob('d-1', { ownerId: 'd' }));
      await store.create(newJob('d-2', { ownerId: 'd' })); // full: a (3 finished) loses a-1
      expect(await store.get('a-1')).toBeUndefined();
      expect(await store.get('b-1')).toBeDefined();
      expect(await store.get('c-1')).toBeDefined();
      await store.create(newJob('d-3', { ownerId: 'd' })); // a (2) again: a-2
      expect(await store.get('a-2')).toBeUndefined();
      expect(await store.get('b-1')).toBeDefined();
      expect(() => new MemoryJobStore({ maxFinishedPerOwner: 0 })).toThrow(GatewayConfigError);
    });

    it('never holds more than maxJobs jobs under sustained load', async () => {
      const store = open({ maxJobs: 50 });
      for (let i = 0; i < 2_000; i++) {
        const { job } = await store.create(newJob(`job-${i}`));
        if (i % 3 === 0) await store.requestCancel(job.jobId);
        else await finish(store, job);
        expect(store.size).toBeLessThanOrEqual(50);
      }
      expect(store.size).toBe(50);
    });
  });

  describe('cancel listeners', () => {
    it('are called before requestCancel resolves', async () => {
      const store = open();
      await store.create(newJob('a'));
      const listener = vi.fn();
      store.onCancel('a', listener);
      await store.requestCancel('a');
      expect(listener).toHaveBeenCalledTimes(1);
    });

    it('a late listener unsubscribed before delivery is not called', async () => {
      const store = open();
      await store.create(newJob('a'));
      await store.requestCancel('a');
      const listener = vi.fn();
      store.onCancel('a', listener)();
      // A late listener kept subscribed, added after it: once it is told, the delivery to the
      // unsubscribed one would have happened too.
      await new Promise<void>((resolve) => store.onCancel('a', resolve));
      expect(listener).not.toHaveBeenCalled();
    });

    it('report what a listener threw to onListenerError, by default console.error', async () => {
      const onListenerError = vi.fn();
      const store = open({ onListenerError });
      await store.create(newJob('a'));
      const failure = new Error('boom');
      store.onCancel('a', () => {
        throw failure;
      });
      await store.requestCancel('a');
      expect(onListenerError).toHaveBeenCalledWith(failure, 'a');

      const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
      const defaults = open();
      await defaults.create(newJob('b'));
      defaults.onCancel('b', () => {
        throw failure;
      });
      await defaults.requestCancel('b');
      expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('job b'), failure);
    });

    it('leave nothing behind after many create/subscribe/cancel/finish/expire cycles', async () => {
      let now = 0;
      const store = open({
        retentionMs: 1_000,
        sweepIntervalMs: 0,
        now: () => now,
        maxFinishedPerOwner: 3_000,
      });
      for (let i = 0; i < 3_000; i++) {
        const { job } = await store.create(newJob(`job-${i}`));
        const unsubscribe = store.onCancel(job.jobId, silent);
        store.onCancel(job.jobId, silent);
        switch (i % 4) {
          case 0:
            await store.requestCancel(job.jobId); // listeners delivered
            store.onCancel(job.jobId, silent); // late listener: delivered, never stored
            break;
          case 1:
            await finish(store, job); // listeners released uncalled
            break;
          case 2:
            unsubscribe();
            await store.requestCancel(job.jobId);
            break;
          default:
            unsubscribe();
            await store.update(job.jobId, job.version, { status: 'failed' });
        }
        store.onCancel(job.jobId, silent); // on a finished job: never stored
        store.onCancel(`unknown-${i}`, silent); // on an unknown job: never stored
        expect(store.listenerCount).toBe(0);
      }
      expect(store.size).toBe(3_000);
      now += 1_000;
      await store.create(newJob('last'));
      expect(store.size).toBe(1);
      expect(store.listenerCount).toBe(0);
    });

    it('counts registered listeners and releases them on unsubscribe', async () => {
      const store = open();
      await store.create(newJob('a'));
      const offs = Array.from({ length: 10 }, () => store.onCancel('a', silent));
      expect(store.listenerCount).toBe(10);
      for (const off of offs) off();
      expect(store.listenerCount).toBe(0);
    });
  });
});
