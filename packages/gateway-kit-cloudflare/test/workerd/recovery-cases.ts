import type { NewJob, StoredJob } from '@svc/gateway-kit/store';
import type { ConformanceTestApi } from '@svc/gateway-kit/testing';
import { DurableJobStore, type DurableJobStoreOptions } from '../../src/durable-job-store.ts';
import type { DurableStorage } from '../../src/durable-storage.ts';

function equal(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const newJob = (jobId: string): NewJob => ({
  jobId,
  ownerId: 'owner',
  invocationId: `inv_${jobId}`,
  actionId: 'report',
  actionName: 'Report',
  status: 'queued',
  createdAt: new Date().toISOString(),
});

/**
 * What `recover()` reports when a new incarnation of the object opens the same tables: each job an
 * earlier one left, once, to the right listener.
 */
export function recoveryCases(
  test: ConformanceTestApi,
  storage: DurableStorage,
  prefix: () => string,
): void {
  /** The store as a new incarnation opens it, with its reports collected. */
  const reopen = (
    tables: string,
    options: Omit<DurableJobStoreOptions, 'prefix'> = {},
    listen = true,
  ) => {
    const store = new DurableJobStore(storage, { ...options, prefix: tables });
    const orphaned: StoredJob[] = [];
    const lost: StoredJob[] = [];
    if (listen) store.onOrphaned((job) => orphaned.push(job));
    store.onWorkerLost((job) => lost.push(job));
    return { store, orphaned, lost };
  };

  test.describe('DurableJobStore recovery (workerd)', () => {
    test.it(
      'reports queued and running jobs as orphans and unannounced finished ones as lost, once',
      async () => {
        const tables = prefix();
        const first = reopen(tables);
        await first.store.create(newJob('queued'));
        const running = await first.store.create(newJob('running'));
        await first.store.update('running', running.job.version, { status: 'running' });
        const done = await first.store.create(newJob('done'));
        const started = await first.store.update('done', done.job.version, { status: 'running' });
        if (!started.ok) throw new Error('start refused');
        await first.store.update('done', started.job.version, { status: 'completed' });
        await first.store.create(newJob('announced'));
        await first.store.requestCancel('announced');
        await first.store.announced('announced');
        equal(await first.store.recover(), 0, 'its own jobs are no orphans');

        const second = reopen(tables);
        equal(await second.store.recover(), 3, 'jobs reported');
        equal(
          second.orphaned.map((job) => [job.jobId, job.status]).sort(),
          [
            ['queued', 'queued'],
            ['running', 'running'],
          ],
          'orphans',
        );
        equal(
          second.lost.map((job) => [job.jobId, job.status]),
          [['done', 'completed']],
          'lost',
        );
        equal(await second.store.recover(), 0, 'reported once');
      },
    );

    test.it('fails a running orphan with worker_lost when nobody can run it again', async () => {
      const tables = prefix();
      const first = reopen(tables);
      const { job } = await first.store.create(newJob('alone'));
      await first.store.update('alone', job.version, { status: 'running' });
      const second = reopen(tables, {}, false);
      await second.store.recover();
      equal(
        second.lost.map((lost) => [lost.jobId, lost.status, lost.error?.code]),
        [['alone', 'failed', 'worker_lost']],
        'lost',
      );
      equal((await second.store.get('alone'))?.status, 'failed', 'stored status');
    });

    test.it(
      'hands a job out to run again at most maxResumes times, then fails it worker_lost',
      async () => {
        const tables = prefix();
        const first = reopen(tables, { maxResumes: 1 });
        const { job } = await first.store.create(newJob('crashy'));
        await first.store.update('crashy', job.version, { status: 'running' });
        const second = reopen(tables, { maxResumes: 1 });
        await second.store.recover();
        equal(
          second.orphaned.map((orphan) => orphan.jobId),
          ['crashy'],
          'first restart: run again',
        );
        const third = reopen(tables, { maxResumes: 1 });
        await third.store.recover();
        equal(third.orphaned, [], 'second restart: not run again');
        equal(
          third.lost.map((lost) => [lost.jobId, lost.error?.code]),
          [['crashy', 'worker_lost']],
          'second restart: failed',
        );
      },
    );
  });
}
