import type * as FastCheck from 'fast-check';
import type { JobStatus } from '../contract/job.ts';
import { isJobQuotaError } from '../store/job-quota-error.ts';
import type {
  JobQuotaClaim,
  JobStore,
  JobUpdate,
  JobWriteResult,
  NewJob,
  StoredJob,
} from '../store/job-store.ts';
import { isJobStoreFullError } from '../store/job-store-full-error.ts';
import {
  assert,
  assertEqual,
  type ConformanceTestApi,
  type FastCheckModule,
  sleep,
} from './conformance-kit.ts';

/** A factory of empty stores, sync or async. */
export type JobStoreFactory = () => JobStore | Promise<JobStore>;

/**
 * What {@link jobStoreConformance} needs to know about the adapter under test.
 *
 * @example
 * const options: JobStoreConformanceOptions = {
 *   name: 'RedisJobStore',
 *   createStore: () => new RedisJobStore({ prefix: `test:${crypto.randomUUID()}:` }),
 *   test: { describe, it },
 *   fc,
 * };
 */
export interface JobStoreConformanceOptions {
  /** Names the top-level `describe` block. */
  readonly name: string;
  /** Returns a new, empty store. Called once per test (and once per model-based run). */
  readonly createStore: JobStoreFactory;
  /** Disposes of a store after its test. Default: `store.close()`. */
  readonly cleanup?: (store: JobStore) => void | Promise<void>;
  /** `describe` and `it` of your test runner. */
  readonly test: ConformanceTestApi;
  /** The `fast-check` module (v4): `import * as fc from 'fast-check'`. */
  readonly fc: FastCheckModule;
  /** Runs of each property (model-based test, races). Default 100. */
  readonly numRuns?: number;
  /** Callers in the concurrent-create and concurrent-update tests. Default 16. */
  readonly concurrency?: number;
  /** How long `onCancel` delivery may take, in ms (e.g. across a pub/sub hop). Default 1000. */
  readonly deliveryTimeoutMs?: number;
  /** Per-test timeout handed to `it`, for slow backends. Default: the runner's own. */
  readonly timeoutMs?: number;
  /**
   * Registers the retention cases when given. `advanceTime(ms)` must move the store's clock
   * forward by `ms` and run whatever makes expired jobs disappear (a fake clock, or a real sleep
   * with a short `retentionMs`). `createStore` defaults to the main one.
   */
  readonly retention?: {
    /** The store's retention of finished jobs, in ms. */
    readonly retentionMs: number;
    /** Moves the store's clock forward by `ms` and lets expired jobs disappear. */
    readonly advanceTime: (ms: number) => void | Promise<void>;
    /** Returns a new, empty store with that retention; defaults to the main `createStore`. */
    readonly createStore?: JobStoreFactory;
  };
  /**
   * Registers the capacity cases when given: `createStore` (default: the main one) must return
   * empty stores holding at most `maxJobs` jobs (2 … 50 keeps the cases quick).
   */
  readonly bounds?: {
    /** Most jobs the stores `createStore` returns may hold. */
    readonly maxJobs: number;
    /** Returns a new, empty store holding at most `maxJobs` jobs; defaults to the main one. */
    readonly createStore?: JobStoreFactory;
  };
  /**
   * `true` for a store that sets `claimsJobQuotas`: registers the cases of jobs' claims on their
   * owners' budgets. The suite checks that the store says what this option says.
   */
  readonly claimsJobQuotas?: boolean;
}

const STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];
const TERMINAL: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];
// The contract's state machine, written out independently of `canTransition` so the suite
// also catches a wrong transition table.
const LEGAL = new Set([
  'queued→running',
  'queued→cancelled',
  'queued→failed',
  'running→completed',
  'running→failed',
  'running→cancelled',
]);
const isLegal = (from: JobStatus, to: JobStatus): boolean => LEGAL.has(`${from}→${to}`);
const isFinished = (status: JobStatus): boolean => TERMINAL.includes(status);
/**
 * How long to keep watching for a notification that must not come (a second call, a call after
 * unsubscribing), once the ones that must come have: no event shows that nothing more happens, so
 * this one window is a fixed wait. A wrong call that comes later than it goes unseen; one that
 * comes at once, as a store's bug usually does, never does.
 */
const SETTLE_MS = 25;

let suiteCounter = 0;

/**
 * Registers the job store conformance suite: the guarantees of {@link JobStore} that the gateway
 * relies on, checked against your adapter. Call it at the top level of a test file. It uses real
 * timers (don't install fake timers around it) and never imports a test runner, so it works with
 * Vitest, Jest, Bun and `node:test`.
 *
 * Covered: create-if-absent (also under concurrency), reads, compare-and-set, every legal and
 * illegal transition, terminal immutability, patches without status, `requestCancel` and `onCancel`
 * delivery, complete-vs-cancel races (explored with `fc.scheduler`), snapshot isolation, and a
 * model-based test (`fc.asyncModelRun`). Retention, capacity and budget cases are registered only
 * when `retention` / `bounds` / `claimsJobQuotas` are given.
 *
 * @example
 * // redis-job-store.test.ts
 * import * as fc from 'fast-check';
 * import { describe, it } from 'vitest';
 * import { jobStoreConformance } from '@svc/gateway-kit/testing';
 * import { RedisJobStore } from './redis-job-store.ts';
 *
 * jobStoreConformance({
 *   name: 'RedisJobStore',
 *   createStore: () => new RedisJobStore({ url: process.env.REDIS_URL, prefix: `t:${crypto.randomUUID()}:` }),
 *   test: { describe, it },
 *   fc,
 *   retention: { retentionMs: 200, advanceTime: (ms) => new Promise((r) => setTimeout(r, ms)) },
 * });
 */
export function jobStoreConformance(options: JobStoreConformanceOptions): void {
  // The real module's types, for the suites' own code (FastCheckModule keeps them out of the
  // published declarations).
  const fc = options.fc as unknown as typeof FastCheck;
  const numRuns = options.numRuns ?? 100;
  const concurrency = options.concurrency ?? 16;
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? 1000;
  const cleanup = options.cleanup ?? ((store: JobStore) => store.close());
  const { describe } = options.test;
  const it = (name: string, body: () => Promise<void>): void => {
    if (options.timeoutMs === undefined) options.test.it(name, body);
    else options.test.it(name, body, options.timeoutMs);
  };
  // Unique ids per registration and per use, so a store shared behind the scenes still works.
  const suiteId = `c${++suiteCounter}`;
  let idCounter = 0;
  const nextId = (label: string): string => `${suiteId}-${label}-${++idCounter}`;

  async function withStore(
    body: (store: JobStore) => Promise<void>,
    factory: JobStoreFactory = options.createStore,
  ): Promise<void> {
    const store = await factory();
    try {
      await body(store);
    } finally {
      await cleanup(store);
    }
  }

  /** Creates a job and walks it to `status` through legal updates. */
  async function jobIn(
    store: JobStore,
    status: JobStatus,
    id = nextId(status),
  ): Promise<StoredJob> {
    const initial = status === 'queued' ? 'queued' : 'running';
    const { job } = await store.create(newJob(id, { status: initial }));
    return status === initial
      ? job
      : okJob(await store.update(id, job.version, { status }), status);
  }

  async function waitUntil(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + deliveryTimeoutMs;
    while (!condition()) {
      if (Date.now() > deadline)
        throw new Error(`Timed out after ${deliveryTimeoutMs} ms waiting for ${what}.`);
      await sleep(2);
    }
  }

  describe(`JobStore conformance: ${options.name}`, () => {
    describe('create and get', () => {
      it('creates a job at version 1 with exactly the given fields and no cancel request', async () => {
        await withStore(async (store) => {
          const input = fullJob(nextId('full'));
          const { created, job } = await store.create(input);
          assert(created, 'the first create of a jobId must report created: true');
          assertTimestamp(job.updatedAt);
          const expected = {
            ...input,
            version: 1,
            cancelRequested: false,
            updatedAt: job.updatedAt,
          };
          assertEqual(job, expected, 'created job');
          assertEqual(await store.get(input.jobId), expected, 'job read back');
        });
      });

      it('creates a job that starts running', async () => {
        await withStore(async (store) => {
          const { job } = await store.create(newJob(nextId('running'), { status: 'running' }));
          assertEqual(job.status, 'running', 'status');
          assertEqual((await store.get(job.jobId))?.status, 'running', 'status read back');
        });
      });

      it('a second create of the same jobId returns the existing job and changes nothing', async () => {
        await withStore(async (store) => {
          const id = nextId('dup');
          const first = await store.create(newJob(id, { invocationId: 'inv-first' }));
          const second = await store.create(
            newJob(id, { invocationId: 'inv-second', status: 'running', outputText: 'x' }),
          );
          assert(!second.created, 'a create of an existing jobId must report created: false');
          assertEqual(second.job, first.job, 'job returned by the second create');
          assertEqual(await store.get(id), first.job, 'stored job');
        });
      });

      it(`${concurrency} concurrent creates of one jobId: exactly one creates it, all see the same job`, async () => {
        await withStore(async (store) => {
          const id = nextId('race');
          const results = await Promise.all(
            Array.from({ length: concurrency }, (_, i) =>
              store.create(newJob(id, { invocationId: `inv-${i}` })),
            ),
          );
          const winners = results.filter((result) => result.created);
          assertEqual(winners.length, 1, 'number of creates reporting created: true');
          const winner = winners[0]!.job;
          for (const result of results)
            assertEqual(result.job, winner, 'job seen by a racing create');
          assertEqual(await store.get(id), winner, 'stored job');
        });
      });

      it('get, update and requestCancel of an unknown job report its absence', async () => {
        await withStore(async (store) => {
          const id = nextId('missing');
          assertEqual(await store.get(id), undefined, 'get of an unknown job');
          assertEqual(
            await store.update(id, 1, { status: 'running' }),
            { ok: false, reason: 'not_found' },
            'update',
          );
          assertEqual(
            await store.requestCancel(id),
            { ok: false, reason: 'not_found' },
            'requestCancel',
          );
        });
      });
    });

    describe('compare-and-set update', () => {
      it('every successful write increments version by one and moves updatedAt forward', async () => {
        await withStore(async (store) => {
          const { job: created } = await store.create(newJob(nextId('versions')));
          const steps: JobUpdate[] = [
            { outputText: 'Waiting for a worker.' },
            { status: 'running' },
            { machineSummary: '40% done' },
            { status: 'completed', outputText: 'Done.', data: { rows: 3 } },
          ];
          let previous = created;
          for (const step of steps) {
            const job = okJob(await store.update(previous.jobId, previous.version, step));
            assertEqual(job.version, previous.version + 1, `version after ${JSON.stringify(step)}`);
            assertTimestamp(job.updatedAt);
            assert(
              Date.parse(job.updatedAt) >= Date.parse(previous.updatedAt),
              `updatedAt went backwards: ${previous.updatedAt} → ${job.updatedAt}`,
            );
            assertEqual(job.createdAt, created.createdAt, 'createdAt');
            assertEqual(await store.get(job.jobId), job, 'job read back');
            previous = job;
          }
        });
      });

      it('a stale or future expectedVersion is a conflict that reports the current job and changes nothing', async () => {
        await withStore(async (store) => {
          const queued = await jobIn(store, 'queued');
          const running = okJob(
            await store.update(queued.jobId, queued.version, { status: 'running' }),
          );
          for (const version of [queued.version, running.version + 1]) {
            const result = await store.update(queued.jobId, version, { status: 'completed' });
            assertEqual(
              result,
              { ok: false, reason: 'conflict', job: running },
              `update at version ${version}`,
            );
          }
          assertEqual(await store.get(queued.jobId), running, 'stored job');
        });
      });

      it(`${concurrency} concurrent updates at the same version: exactly one wins`, async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          const results = await Promise.all(
            Array.from({ length: concurrency }, (_, i) =>
              store.update(job.jobId, job.version, { outputText: `writer ${i}` }),
            ),
          );
          const winners = results.filter((result) => result.ok);
          assertEqual(winners.length, 1, 'number of successful updates');
          for (const result of results) {
            if (!result.ok) assertEqual(result.reason, 'conflict', 'reason of a losing update');
          }
          const stored = await store.get(job.jobId);
          assertEqual(stored, winners[0]!.job, 'stored job');
          assertEqual(stored?.version, job.version + 1, 'version');
        });
      });

      it('an update without status patches the given fields of a queued or running job', async () => {
        await withStore(async (store) => {
          for (const status of ['queued', 'running'] as const) {
            const job = await jobIn(store, status);
            const withText = okJob(
              await store.update(job.jobId, job.version, { outputText: 'Half way.' }),
            );
            const patched = okJob(
              await store.update(job.jobId, withText.version, {
                machineSummary: '50%',
                data: { progress: 0.5 },
              }),
            );
            const expected = {
              ...job,
              outputText: 'Half way.',
              machineSummary: '50%',
              data: { progress: 0.5 },
              version: job.version + 2,
              updatedAt: patched.updatedAt,
            };
            assertEqual(patched, expected, `patched ${status} job`);
            assertEqual(await store.get(job.jobId), expected, `stored ${status} job`);
          }
        });
      });
    });

    describe('state machine', () => {
      for (const from of STATUSES) {
        for (const to of STATUSES) {
          const legal = isLegal(from, to);
          it(`${from} → ${to} is ${legal ? 'allowed' : 'invalid_transition'}`, async () => {
            await withStore(async (store) => {
              const job = await jobIn(store, from);
              const result = await store.update(job.jobId, job.version, { status: to });
              if (legal) {
                const updated = okJob(result, to);
                assertEqual(updated.version, job.version + 1, 'version');
                assertEqual(await store.get(job.jobId), updated, 'stored job');
              } else {
                assertEqual(result, { ok: false, reason: 'invalid_transition', job }, 'result');
                assertEqual(await store.get(job.jobId), job, 'stored job');
              }
            });
          });
        }
      }

      it('a finished job never changes: no update, patch or cancel is accepted', async () => {
        await withStore(async (store) => {
          for (const status of TERMINAL) {
            const job = await jobIn(store, status);
            const attempts: JobUpdate[] = [
              ...STATUSES.map((next) => ({ status: next, outputText: 'late' })),
              { outputText: 'late' },
              { data: { late: true } },
            ];
            for (const attempt of attempts) {
              const result = await store.update(job.jobId, job.version, attempt);
              assert(!result.ok, `${status} job accepted ${JSON.stringify(attempt)}`);
            }
            assert(
              !(await store.requestCancel(job.jobId)).ok,
              `${status} job accepted requestCancel`,
            );
            assertEqual(await store.get(job.jobId), job, `stored ${status} job`);
          }
        });
      });
    });

    describe("the caller's request", () => {
      it('every way a job ends drops request, in the same write, and keeps every other field', async () => {
        await withStore(async (store) => {
          const ends: Array<[string, (job: StoredJob) => Promise<JobWriteResult>]> = [
            ['completed', (job) => store.update(job.jobId, job.version, { status: 'completed' })],
            ['failed', (job) => store.update(job.jobId, job.version, { status: 'failed' })],
            ['cancelled', (job) => store.requestCancel(job.jobId)],
          ];
          for (const start of ['queued', 'running'] as const) {
            for (const [how, end] of ends) {
              if (start === 'queued' && how === 'completed') continue;
              const { job } = await store.create({ ...fullJob(nextId('req')), status: start });
              assert(job.request !== undefined, 'a new job keeps its request');
              const ended = await end(job);
              assert(ended.ok, `${start} → ${how}`);
              assertEqual(ended.job.request, undefined, `request of the ${how} job (written)`);
              const stored = await store.get(job.jobId);
              assertEqual(stored?.request, undefined, `request of the ${how} job (read back)`);
              assertEqual(stored?.payload, job.payload, `payload of the ${how} job`);
              assertEqual(stored?.invocationId, job.invocationId, `invocationId of the ${how} job`);
            }
          }
        });
      });

      it('a patch of a running job keeps its request', async () => {
        await withStore(async (store) => {
          const { job } = await store.create({ ...fullJob(nextId('req')), status: 'running' });
          const patched = okJob(await store.update(job.jobId, job.version, { outputText: 'half' }));
          assertEqual(patched.request, job.request, 'request after a progress write');
        });
      });
    });

    describe('requestCancel', () => {
      it('cancels a queued or running job: cancelled, cancelRequested, version + 1', async () => {
        await withStore(async (store) => {
          for (const status of ['queued', 'running'] as const) {
            const job = await jobIn(store, status);
            const cancelled = okJob(await store.requestCancel(job.jobId), 'cancelled');
            const expected = {
              ...job,
              status: 'cancelled',
              cancelRequested: true,
              version: job.version + 1,
              updatedAt: cancelled.updatedAt,
            };
            assertTimestamp(cancelled.updatedAt);
            assertEqual(cancelled, expected, `cancelled ${status} job`);
            assertEqual(await store.get(job.jobId), expected, `stored ${status} job`);
          }
        });
      });

      it('requestCancel of a finished job is invalid_transition and changes nothing', async () => {
        await withStore(async (store) => {
          for (const status of TERMINAL) {
            const job = await jobIn(store, status);
            const result = await store.requestCancel(job.jobId);
            assertEqual(
              result,
              { ok: false, reason: 'invalid_transition', job },
              `requestCancel of ${status}`,
            );
          }
          const cancelled = okJob(await store.requestCancel((await jobIn(store, 'running')).jobId));
          const again = await store.requestCancel(cancelled.jobId);
          assertEqual(
            again,
            { ok: false, reason: 'invalid_transition', job: cancelled },
            'second requestCancel',
          );
        });
      });

      it('a runner holding the pre-cancel version cannot overwrite the cancellation', async () => {
        await withStore(async (store) => {
          const running = await jobIn(store, 'running');
          const cancelled = okJob(await store.requestCancel(running.jobId));
          const late = await store.update(running.jobId, running.version, {
            status: 'completed',
            outputText: 'Done.',
          });
          assertEqual(late, { ok: false, reason: 'conflict', job: cancelled }, 'late completion');
          const retried = await store.update(running.jobId, cancelled.version, {
            status: 'completed',
          });
          assertEqual(
            retried,
            { ok: false, reason: 'invalid_transition', job: cancelled },
            'completion after re-read',
          );
          assertEqual(await store.get(running.jobId), cancelled, 'stored job');
        });
      });
    });

    describe('onCancel', () => {
      it('calls every listener of the cancelled job exactly once, and none of other jobs', async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          const other = await jobIn(store, 'running');
          const calls = { first: 0, second: 0, other: 0 };
          store.onCancel(job.jobId, () => calls.first++);
          store.onCancel(job.jobId, () => calls.second++);
          store.onCancel(other.jobId, () => calls.other++);
          okJob(await store.requestCancel(job.jobId));
          await waitUntil(() => calls.first > 0 && calls.second > 0, 'both cancel listeners');
          await store.requestCancel(job.jobId);
          await sleep(SETTLE_MS);
          assertEqual(calls, { first: 1, second: 1, other: 0 }, 'listener calls');
        });
      });

      it('calls a listener registered after cancellation was requested, once', async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'queued');
          okJob(await store.requestCancel(job.jobId));
          let calls = 0;
          store.onCancel(job.jobId, () => calls++);
          await waitUntil(() => calls > 0, 'the late cancel listener');
          await sleep(SETTLE_MS);
          assertEqual(calls, 1, 'late listener calls');
        });
      });

      it('does not call a listener after it unsubscribed', async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          let unsubscribedCalls = 0;
          let sentinelCalls = 0;
          const unsubscribe = store.onCancel(job.jobId, () => unsubscribedCalls++);
          store.onCancel(job.jobId, () => sentinelCalls++);
          unsubscribe();
          unsubscribe(); // idempotent
          okJob(await store.requestCancel(job.jobId));
          await waitUntil(() => sentinelCalls > 0, 'the still-subscribed listener');
          await sleep(SETTLE_MS);
          assertEqual(unsubscribedCalls, 0, 'calls of the unsubscribed listener');
        });
      });

      it('does not call listeners when the job finishes without a cancel request', async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          let calls = 0;
          store.onCancel(job.jobId, () => calls++);
          okJob(await store.update(job.jobId, job.version, { status: 'completed' }));
          await sleep(SETTLE_MS);
          assertEqual(calls, 0, 'listener calls');
        });
      });

      it('a throwing listener neither fails requestCancel nor stops the other listeners', async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          let calls = 0;
          store.onCancel(job.jobId, () => {
            throw new Error('listener failure (expected by the conformance suite)');
          });
          store.onCancel(job.jobId, () => calls++);
          okJob(await store.requestCancel(job.jobId), 'cancelled');
          await waitUntil(() => calls > 0, 'the listener after the throwing one');
        });
      });
    });

    describe('races', () => {
      it('completion vs requestCancel: exactly one wins, the outcome matches it and is final', async () => {
        await withStore(async (store) => {
          await fc.assert(
            fc.asyncProperty(fc.scheduler(), async (s) => {
              const job = await jobIn(store, 'running', nextId('race'));
              let listenerCalls = 0;
              store.onCancel(job.jobId, () => listenerCalls++);
              const completion = s.schedule(Promise.resolve(), 'complete').then(() =>
                store.update(job.jobId, job.version, {
                  status: 'completed',
                  outputText: 'Done.',
                }),
              );
              const cancel = s
                .schedule(Promise.resolve(), 'requestCancel')
                .then(() => store.requestCancel(job.jobId));
              await s.waitIdle();
              const [completed, cancelled] = await Promise.all([completion, cancel]);
              assert(
                completed.ok !== cancelled.ok,
                `exactly one must win: ${JSON.stringify([completed, cancelled])}`,
              );
              const winner = completed.ok ? completed.job : okJob(cancelled);
              assertEqual(
                winner.status,
                completed.ok ? 'completed' : 'cancelled',
                'status of the winning write',
              );
              assertEqual(winner.cancelRequested, cancelled.ok, 'cancelRequested');
              assertEqual(winner.version, job.version + 1, 'version');
              assertEqual(await store.get(job.jobId), winner, 'stored job');
              if (cancelled.ok) await waitUntil(() => listenerCalls === 1, 'the cancel listener');
              // Final: nothing moves it any more.
              assert(
                !(await store.requestCancel(job.jobId)).ok,
                'a finished job accepted requestCancel',
              );
              assert(
                !(await store.update(job.jobId, winner.version, { status: 'failed' })).ok,
                'a finished job accepted an update',
              );
              assertEqual(await store.get(job.jobId), winner, 'stored job after further writes');
            }),
            { numRuns },
          );
        });
      });

      it('start vs requestCancel of a queued job: the cancel always wins and the runner cannot finish', async () => {
        await withStore(async (store) => {
          await fc.assert(
            fc.asyncProperty(fc.scheduler(), async (s) => {
              const job = await jobIn(store, 'queued', nextId('start'));
              const start = s
                .schedule(Promise.resolve(), 'start')
                .then(() => store.update(job.jobId, job.version, { status: 'running' }));
              const cancel = s
                .schedule(Promise.resolve(), 'requestCancel')
                .then(() => store.requestCancel(job.jobId));
              await s.waitIdle();
              const [started, cancelled] = await Promise.all([start, cancel]);
              const final = okJob(cancelled, 'cancelled');
              assertEqual(final.version, job.version + (started.ok ? 2 : 1), 'version');
              if (!started.ok) assertEqual(started.reason, 'conflict', 'reason the start lost');
              // The runner finishing with whatever version it holds must fail.
              const runnerVersion = started.ok ? started.job.version : job.version;
              assert(
                !(await store.update(job.jobId, runnerVersion, { status: 'completed' })).ok,
                'the runner completed a cancelled job',
              );
              assertEqual(await store.get(job.jobId), final, 'stored job');
            }),
            { numRuns },
          );
        });
      });

      it(`${concurrency} concurrent requestCancel calls: one succeeds, listeners are called once`, async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          let calls = 0;
          store.onCancel(job.jobId, () => calls++);
          const results = await Promise.all(
            Array.from({ length: concurrency }, () => store.requestCancel(job.jobId)),
          );
          assertEqual(
            results.filter((result) => result.ok).length,
            1,
            'successful requestCancel calls',
          );
          for (const result of results) {
            if (!result.ok)
              assertEqual(result.reason, 'invalid_transition', 'reason of a losing requestCancel');
          }
          await waitUntil(() => calls > 0, 'the cancel listener');
          await sleep(SETTLE_MS);
          assertEqual(calls, 1, 'listener calls');
        });
      });
    });

    describe('snapshot isolation', () => {
      it('changing the create input afterwards does not change the stored job', async () => {
        await withStore(async (store) => {
          const input = fullJob(nextId('input')) as Mutable<NewJob>;
          const { job } = await store.create(input);
          const before = structuredClone(job);
          input.outputText = 'changed';
          (input.data as { nested: { value: number } }).nested.value = 999;
          (input.payload as { list: number[] }).list.push(4);
          assertEqual(await store.get(input.jobId), before, 'stored job');
        });
      });

      it('changing an update afterwards does not change the stored job', async () => {
        await withStore(async (store) => {
          const job = await jobIn(store, 'running');
          const update = {
            status: 'completed',
            data: { nested: { value: 1 } },
          } satisfies JobUpdate;
          const completed = okJob(await store.update(job.jobId, job.version, update));
          const before = structuredClone(completed);
          update.data.nested.value = 999;
          assertEqual(await store.get(job.jobId), before, 'stored job');
        });
      });

      it('changing a returned job does not change the stored job', async () => {
        await withStore(async (store) => {
          const id = nextId('returned');
          const returned: StoredJob[] = [];
          returned.push((await store.create(fullJob(id))).job);
          returned.push((await store.create(fullJob(id))).job);
          returned.push((await store.get(id))!);
          const updated = okJob(await store.update(id, 1, { data: { nested: { value: 2 } } }));
          returned.push(updated, okJob(await store.requestCancel(id)));
          const failed = await store.update(id, 1, { outputText: 'stale' });
          if (failed.job) returned.push(failed.job);
          const before = structuredClone(await store.get(id));
          for (const job of returned) tamper(job);
          assertEqual(await store.get(id), before, 'stored job');
        });
      });
    });

    describe('model-based', () => {
      it('matches a reference model under random create/get/update/requestCancel sequences', async () => {
        const slot = fc.constantFrom('a', 'b', 'c');
        const status = fc.constantFrom(...STATUSES);
        const text = fc.option(fc.string({ maxLength: 6 }), { nil: undefined });
        const commands = fc.commands<Model, JobStore, false>([
          fc
            .record({ slot, status: fc.constantFrom('queued' as const, 'running' as const), text })
            .map(({ slot, status, text }) => new CreateCommand(slot, status, text)),
          slot.map((s) => new GetCommand(s)),
          fc
            .record({
              slot,
              versionOffset: fc.constantFrom(0, 0, 0, -1, 1),
              status: fc.option(status, { nil: undefined }),
              text,
            })
            .map((c) => new UpdateCommand(c.slot, c.versionOffset, c.status, c.text)),
          slot.map((s) => new CancelCommand(s)),
        ]);
        await fc.assert(
          fc.asyncProperty(commands, async (cmds) => {
            await withStore(async (store) => {
              const model: Model = { prefix: nextId('model'), jobs: new Map() };
              await fc.asyncModelRun(() => ({ model, real: store }), cmds);
            });
          }),
          { numRuns },
        );
      });
    });

    const { retention } = options;
    if (retention) {
      const { retentionMs, advanceTime } = retention;
      const inRetentionStore = (body: (store: JobStore) => Promise<void>) =>
        withStore(body, retention.createStore);

      describe('retention', () => {
        it('a finished job is readable during retention and gone after it', async () => {
          await inRetentionStore(async (store) => {
            const finished = [
              await jobIn(store, 'completed'),
              await jobIn(store, 'failed'),
              okJob(await store.requestCancel((await jobIn(store, 'queued')).jobId)),
            ];
            await advanceTime(retentionMs / 2);
            for (const job of finished)
              assertEqual(await store.get(job.jobId), job, `${job.status} job at half retention`);
            await advanceTime(retentionMs / 2 + 1);
            for (const job of finished) {
              assertEqual(
                await store.get(job.jobId),
                undefined,
                `${job.status} job after retention`,
              );
              assertEqual(
                (await store.requestCancel(job.jobId)).ok,
                false,
                'requestCancel after retention',
              );
            }
          });
        });

        it('active jobs never expire', async () => {
          await inRetentionStore(async (store) => {
            const active = [await jobIn(store, 'queued'), await jobIn(store, 'running')];
            await advanceTime(retentionMs * 3);
            for (const job of active) {
              assertEqual(await store.get(job.jobId), job, `${job.status} job after 3× retention`);
              okJob(await store.update(job.jobId, job.version, { outputText: 'still here' }));
            }
          });
        });

        it('retention counts from when the job finished, not from when it was created', async () => {
          await inRetentionStore(async (store) => {
            const job = await jobIn(store, 'running');
            await advanceTime(retentionMs * 2);
            const completed = okJob(
              await store.update(job.jobId, job.version, { status: 'completed' }),
            );
            await advanceTime(retentionMs / 2);
            assertEqual(
              await store.get(job.jobId),
              completed,
              'job at half retention after finishing',
            );
            await advanceTime(retentionMs / 2 + 1);
            assertEqual(await store.get(job.jobId), undefined, 'job after retention');
          });
        });
      });
    }

    const { bounds } = options;
    if (bounds) {
      const { maxJobs } = bounds;
      const inBoundedStore = (body: (store: JobStore) => Promise<void>) =>
        withStore(body, bounds.createStore);

      describe(`bounds (maxJobs ${maxJobs})`, () => {
        it('when full, the earliest-finished job is evicted first, whatever its age', async () => {
          await inBoundedStore(async (store) => {
            const jobs: StoredJob[] = [];
            for (let i = 0; i < maxJobs; i++) jobs.push(await jobIn(store, 'running'));
            // Finish in reverse creation order: the newest job finishes first.
            const finishOrder = [...jobs].reverse();
            for (const job of finishOrder)
              okJob(await store.update(job.jobId, job.version, { status: 'completed' }));
            for (let evicted = 1; evicted <= Math.min(2, maxJobs); evicted++) {
              const extra = await store.create(newJob(nextId('extra')));
              assert(extra.created, 'create in a store full of finished jobs must succeed');
              for (const [index, job] of finishOrder.entries()) {
                const present = (await store.get(job.jobId)) !== undefined;
                assertEqual(
                  present,
                  index >= evicted,
                  `job finished ${index + 1}. present after ${evicted} eviction(s)`,
                );
              }
            }
          });
        });

        it('active jobs are never evicted: a store full of them rejects create with JobStoreFullError', async () => {
          await inBoundedStore(async (store) => {
            const active: StoredJob[] = [];
            for (let i = 0; i < maxJobs; i++)
              active.push(await jobIn(store, i % 2 ? 'running' : 'queued'));
            const rejection = await store.create(newJob(nextId('overflow'))).then(
              () => undefined,
              (error: unknown) => error,
            );
            assert(
              isJobStoreFullError(rejection),
              `expected a JobStoreFullError, got ${String(rejection)}`,
            );
            for (const job of active)
              assertEqual(await store.get(job.jobId), job, 'active job after the rejection');
            // Finishing one frees a slot.
            const first = active[0]!;
            okJob(await store.update(first.jobId, first.version, { status: 'failed' }));
            assert(
              (await store.create(newJob(nextId('after')))).created,
              'create after a job finished',
            );
            assertEqual(
              await store.get(first.jobId),
              undefined,
              'the finished job, evicted for the new one',
            );
          });
        });

        // From 3 slots on: with 2, two principals holding one finished job each tie for eviction.
        it("one principal's churn never evicts another principal's finished job", async () => {
          if (maxJobs < 3) return;
          await inBoundedStore(async (store) => {
            const victim = await store.create(newJob(nextId('victim'), { ownerId: 'owner-b' }));
            okJob(await store.update(victim.job.jobId, victim.job.version, { status: 'running' }));
            const running = await store.get(victim.job.jobId);
            okJob(await store.update(victim.job.jobId, running!.version, { status: 'completed' }));
            // Many times the store's size of short jobs by another principal.
            for (let i = 0; i < 4 * maxJobs; i++) {
              const { job } = await store.create(newJob(nextId('churn'), { ownerId: 'owner-a' }));
              okJob(await store.requestCancel(job.jobId));
            }
            assertEqual(
              (await store.get(victim.job.jobId))?.status,
              'completed',
              "the other principal's finished job after the churn",
            );
          });
        });

        it('creating an existing jobId in a full store returns it instead of rejecting', async () => {
          await inBoundedStore(async (store) => {
            const active: StoredJob[] = [];
            for (let i = 0; i < maxJobs; i++) active.push(await jobIn(store, 'running'));
            const again = await store.create(newJob(active[0]!.jobId));
            assertEqual(again, { created: false, job: active[0] }, 'create of an existing jobId');
          });
        });
      });
    }

    it(`claimsJobQuotas is ${options.claimsJobQuotas === true}, as the suite was told`, async () => {
      await withStore(async (store) => {
        assertEqual(
          store.claimsJobQuotas === true,
          options.claimsJobQuotas === true,
          'claimsJobQuotas',
        );
      });
    });

    if (options.claimsJobQuotas) {
      const claim = (overrides: Partial<JobQuotaClaim> = {}): JobQuotaClaim => ({
        maxActive: 2,
        units: 1,
        maxUnits: 100,
        ttlMs: 60_000,
        ...overrides,
      });
      /** The budget a create was refused for, or `undefined` when it created the job. */
      const refusal = (
        store: JobStore,
        job: NewJob,
        taking: JobQuotaClaim,
      ): Promise<string | undefined> =>
        store.create(job, taking).then(
          () => undefined,
          (error: unknown) => {
            if (isJobQuotaError(error)) return error.quota;
            throw error;
          },
        );

      describe("jobs' claims on their owners' budgets (claimsJobQuotas)", () => {
        it('a create past maxActive is refused with activeJobs and writes nothing', async () => {
          await withStore(async (store) => {
            for (let i = 0; i < 2; i++)
              assert((await store.create(newJob(nextId('q')), claim())).created, `job ${i + 1}`);
            const id = nextId('q-over');
            assertEqual(await refusal(store, newJob(id), claim()), 'activeJobs', 'the third job');
            assertEqual(await store.get(id), undefined, 'the refused job');
          });
        });

        it('units past maxUnits are refused with heldBytes; a job that fits still gets in', async () => {
          await withStore(async (store) => {
            const bounds = { maxActive: 10, maxUnits: 4 };
            assert(
              (await store.create(newJob(nextId('u')), claim({ ...bounds, units: 3 }))).created,
              '3 of 4 units',
            );
            const id = nextId('u-over');
            assertEqual(
              await refusal(store, newJob(id), claim({ ...bounds, units: 2 })),
              'heldBytes',
              '2 more units',
            );
            assertEqual(await store.get(id), undefined, 'the refused job');
            assert(
              (await store.create(newJob(nextId('u')), claim({ ...bounds, units: 1 }))).created,
              'the fourth unit',
            );
          });
        });

        it('every way a job ends gives its budgets back: complete, fail, cancel', async () => {
          await withStore(async (store) => {
            const bounds = { maxActive: 1, units: 2, maxUnits: 2 };
            const ends: ((job: StoredJob) => Promise<JobWriteResult>)[] = [
              (job) => store.update(job.jobId, job.version, { status: 'completed' }),
              (job) => store.update(job.jobId, job.version, { status: 'failed' }),
              (job) => store.requestCancel(job.jobId),
            ];
            for (const end of ends) {
              const { job } = await store.create(
                newJob(nextId('end'), { status: 'running' }),
                claim(bounds),
              );
              assertEqual(
                await refusal(store, newJob(nextId('end')), claim(bounds)),
                'activeJobs',
                'while it runs',
              );
              okJob(await end(job));
            }
            assert(
              (await store.create(newJob(nextId('end')), claim(bounds))).created,
              'after three ends',
            );
          });
        });

        it('a progress write keeps the budgets taken; only the terminal write gives them back', async () => {
          await withStore(async (store) => {
            const { job } = await store.create(newJob(nextId('p')), claim({ maxActive: 1 }));
            const running = okJob(
              await store.update(job.jobId, job.version, { status: 'running' }),
            );
            okJob(await store.update(job.jobId, running.version, { outputText: 'half way' }));
            assertEqual(
              await refusal(store, newJob(nextId('p')), claim({ maxActive: 1 })),
              'activeJobs',
              'after progress',
            );
          });
        });

        it('owners are counted apart', async () => {
          await withStore(async (store) => {
            await store.create(
              newJob(nextId('a'), { ownerId: 'owner-a' }),
              claim({ maxActive: 1 }),
            );
            assertEqual(
              await refusal(
                store,
                newJob(nextId('a'), { ownerId: 'owner-a' }),
                claim({ maxActive: 1 }),
              ),
              'activeJobs',
              "owner-a's second job",
            );
            assert(
              (
                await store.create(
                  newJob(nextId('b'), { ownerId: 'owner-b' }),
                  claim({ maxActive: 1 }),
                )
              ).created,
              "owner-b's first job",
            );
          });
        });

        it('a create of an existing job takes nothing, even with the budget spent', async () => {
          await withStore(async (store) => {
            const first = await store.create(newJob(nextId('x')), claim({ maxActive: 1 }));
            const again = await store.create(newJob(first.job.jobId), claim({ maxActive: 1 }));
            assertEqual(again, { created: false, job: first.job }, 'the existing job');
            okJob(await store.requestCancel(first.job.jobId));
            assert(
              (await store.create(newJob(nextId('x')), claim({ maxActive: 1 }))).created,
              'after it ended: one unit was taken, not two',
            );
          });
        });

        it('a job created without a claim neither counts nor gives anything back', async () => {
          await withStore(async (store) => {
            const free = await store.create(newJob(nextId('free')));
            assert(
              (await store.create(newJob(nextId('c')), claim({ maxActive: 1 }))).created,
              'the claimed job',
            );
            okJob(await store.requestCancel(free.job.jobId));
            assertEqual(
              await refusal(store, newJob(nextId('c')), claim({ maxActive: 1 })),
              'activeJobs',
              'after the unclaimed job ended',
            );
          });
        });

        it(`${concurrency} racing creates against maxActive 3: exactly 3 get in`, async () => {
          await withStore(async (store) => {
            const outcomes = await Promise.all(
              Array.from({ length: concurrency }, () =>
                refusal(store, newJob(nextId('race')), claim({ maxActive: 3 })),
              ),
            );
            assertEqual(
              outcomes.filter((outcome) => outcome === undefined).length,
              3,
              'jobs created',
            );
            assertEqual(
              outcomes.filter((outcome) => outcome === 'activeJobs').length,
              concurrency - 3,
              'refusals',
            );
          });
        });
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Model-based test: the reference model and its commands.

interface ModelJob {
  status: JobStatus;
  version: number;
  cancelRequested: boolean;
  invocationId: string;
  outputText: string | undefined;
}

interface Model {
  /** Unique per run, so job ids never collide across runs. */
  readonly prefix: string;
  readonly jobs: Map<string, ModelJob>;
}

function assertMatchesModel(
  job: StoredJob | undefined,
  expected: ModelJob | undefined,
  what: string,
): void {
  if (expected === undefined || job === undefined) {
    assertEqual(job, expected, what);
    return;
  }
  assertEqual(
    {
      status: job.status,
      version: job.version,
      cancelRequested: job.cancelRequested,
      invocationId: job.invocationId,
      outputText: job.outputText,
    },
    expected,
    what,
  );
}

class CreateCommand implements FastCheck.AsyncCommand<Model, JobStore> {
  readonly slot: string;
  readonly status: 'queued' | 'running';
  readonly text: string | undefined;
  constructor(slot: string, status: 'queued' | 'running', text: string | undefined) {
    this.slot = slot;
    this.status = status;
    this.text = text;
  }
  check(): boolean {
    return true;
  }
  async run(model: Model, store: JobStore): Promise<void> {
    const jobId = `${model.prefix}-${this.slot}`;
    const invocationId = `inv-${this.slot}-${this.status}-${this.text ?? ''}`;
    const input = newJob(jobId, { status: this.status, invocationId });
    const { created, job } = await store.create(
      this.text === undefined ? input : { ...input, outputText: this.text },
    );
    const existing = model.jobs.get(jobId);
    assertEqual(created, existing === undefined, 'created');
    const expected = existing ?? {
      status: this.status,
      version: 1,
      cancelRequested: false,
      invocationId,
      outputText: this.text,
    };
    model.jobs.set(jobId, expected);
    assertMatchesModel(job, expected, 'created job');
  }
  toString(): string {
    return `create(${this.slot}, ${this.status}, ${JSON.stringify(this.text)})`;
  }
}

class GetCommand implements FastCheck.AsyncCommand<Model, JobStore> {
  readonly slot: string;
  constructor(slot: string) {
    this.slot = slot;
  }
  check(): boolean {
    return true;
  }
  async run(model: Model, store: JobStore): Promise<void> {
    const jobId = `${model.prefix}-${this.slot}`;
    assertMatchesModel(await store.get(jobId), model.jobs.get(jobId), 'job read back');
  }
  toString(): string {
    return `get(${this.slot})`;
  }
}

class UpdateCommand implements FastCheck.AsyncCommand<Model, JobStore> {
  readonly slot: string;
  readonly versionOffset: number;
  readonly status: JobStatus | undefined;
  readonly text: string | undefined;
  constructor(
    slot: string,
    versionOffset: number,
    status: JobStatus | undefined,
    text: string | undefined,
  ) {
    this.slot = slot;
    this.versionOffset = versionOffset;
    this.status = status;
    this.text = text;
  }
  check(): boolean {
    return true;
  }
  async run(model: Model, store: JobStore): Promise<void> {
    const jobId = `${model.prefix}-${this.slot}`;
    const current = model.jobs.get(jobId);
    const update: { status?: JobStatus; outputText?: string } = {};
    if (this.status !== undefined) update.status = this.status;
    if (this.text !== undefined) update.outputText = this.text;
    const result = await store.update(jobId, (current?.version ?? 1) + this.versionOffset, update);
    if (current === undefined) {
      assertEqual(result, { ok: false, reason: 'not_found' }, 'update of an unknown job');
      return;
    }
    const allowed =
      this.status === undefined
        ? !isFinished(current.status)
        : isLegal(current.status, this.status);
    const expectedReason =
      this.versionOffset !== 0 ? 'conflict' : allowed ? undefined : 'invalid_transition';
    if (expectedReason !== undefined) {
      assert(!result.ok, `update ${this} must fail with ${expectedReason}`);
      assertEqual(result.reason, expectedReason, 'reason');
      assertMatchesModel(result.job, current, 'job reported with the failure');
      return;
    }
    const next: ModelJob = {
      ...current,
      status: this.status ?? current.status,
      version: current.version + 1,
      outputText: this.text ?? current.outputText,
    };
    model.jobs.set(jobId, next);
    assert(result.ok, `update ${this} must succeed, got ${JSON.stringify(result)}`);
    assertMatchesModel(result.job, next, 'updated job');
  }
  toString(): string {
    return `update(${this.slot}, version${this.versionOffset >= 0 ? '+' : ''}${this.versionOffset}, ${JSON.stringify({ status: this.status, outputText: this.text })})`;
  }
}

class CancelCommand implements FastCheck.AsyncCommand<Model, JobStore> {
  readonly slot: string;
  constructor(slot: string) {
    this.slot = slot;
  }
  check(): boolean {
    return true;
  }
  async run(model: Model, store: JobStore): Promise<void> {
    const jobId = `${model.prefix}-${this.slot}`;
    const current = model.jobs.get(jobId);
    const result = await store.requestCancel(jobId);
    if (current === undefined) {
      assertEqual(result, { ok: false, reason: 'not_found' }, 'requestCancel of an unknown job');
      return;
    }
    if (isFinished(current.status)) {
      assert(!result.ok, `requestCancel of a ${current.status} job must fail`);
      assertEqual(result.reason, 'invalid_transition', 'reason');
      assertMatchesModel(result.job, current, 'job reported with the failure');
      return;
    }
    const next: ModelJob = {
      ...current,
      status: 'cancelled',
      cancelRequested: true,
      version: current.version + 1,
    };
    model.jobs.set(jobId, next);
    assert(result.ok, `requestCancel must succeed, got ${JSON.stringify(result)}`);
    assertMatchesModel(result.job, next, 'cancelled job');
  }
  toString(): string {
    return `requestCancel(${this.slot})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures and assertions (self-contained so the suite needs no `expect`).

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function newJob(jobId: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    jobId,
    ownerId: 'owner-1',
    invocationId: `inv-${jobId}`,
    actionId: 'export-report',
    actionName: 'Export report',
    status: 'queued',
    createdAt: '2025-01-02T03:04:05.000Z',
    ...overrides,
  };
}

/** A job with every optional field set, nested data included. */
function fullJob(jobId: string): NewJob {
  return newJob(jobId, {
    deadlineAt: '2025-01-02T04:04:05.000Z',
    outputText: 'Queued.',
    machineSummary: 'queued',
    dataSchemaVersion: '1',
    data: { nested: { value: 1 }, tags: ['a', 'b'] },
    error: { code: 'none', message: 'placeholder', retryable: false, details: { attempt: 1 } },
    payload: { input: { accountId: 'acc_42' }, list: [1, 2, 3] },
    request: '{"input":{"accountId":"acc_42"}}\n{"notes":[{},{}]}',
  });
}

/** Tries to change a returned job every way a careless caller might; frozen records may throw. */
function tamper(job: StoredJob): void {
  const attempts: ((target: Record<string, unknown>) => void)[] = [
    (target) => {
      target.status = 'failed';
    },
    (target) => {
      target.version = 999;
    },
    (target) => {
      (target.data as { nested: { value: number } }).nested.value = 999;
    },
    (target) => {
      (target.payload as { list: number[] }).list.push(999);
    },
    (target) => {
      delete target.outputText;
    },
  ];
  for (const attempt of attempts) {
    try {
      attempt(job as unknown as Record<string, unknown>);
    } catch {
      // Frozen snapshots reject the change: that is one of the two acceptable behaviours.
    }
  }
}

function okJob(result: JobWriteResult, status?: JobStatus): StoredJob {
  assert(result.ok, `expected the write to succeed, got ${JSON.stringify(result)}`);
  if (status !== undefined) assertEqual(result.job.status, status, 'status after the write');
  return result.job;
}

function assertTimestamp(value: unknown): void {
  assert(
    typeof value === 'string' &&
      !Number.isNaN(Date.parse(value)) &&
      new Date(value).toISOString() === value,
    `expected an ISO 8601 UTC timestamp, got ${JSON.stringify(value)}`,
  );
}
