// pnpm bench (or bench:smoke): PostgresJobStore against pg-boss on the same PostgreSQL, same run.
// Starts its own PostgreSQL 15 (initdb, pg_ctl; fsync off, as in the tests) on a free loopback port.
//
// 1. jobs/s create → running → completed: C workers, each job created, moved to running and
//    completed one by one (as a gateway does), PostgresJobStore vs pg-boss (send → fetch →
//    complete, one job per call, the same work).
// 2. pg-boss again as its docs recommend for throughput: fetch and complete in batches
//    (batchSize = C), printed beside it.
// 3. accepted async invokes/s through createGateway on the Postgres stores.
// 4. statements per job and per invoke (counted on the stores' pool).
// Rounds of the two one-by-one runs alternate (warm-up first) and the median is printed, so that
// neither profits from running second on a shared machine.
import { createGateway, defineAction } from '@svc/gateway-kit';
import { invokeBody } from '@svc/gateway-kit/testing';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import * as v from 'valibot';
import { migrate, PostgresJobStore, PostgresRecordStore } from '../src/index.ts';
import { startPostgres } from '../test/postgres-server.ts';

const smoke = process.argv.includes('--smoke');
const JOBS = Number(process.env.BENCH_JOBS ?? (smoke ? 300 : 5_000));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const INVOKE_MS = smoke ? 1_000 : 5_000;
const POOL = 10;
const ROUNDS = smoke ? 1 : 3;
let perJob = 0;

const postgres = await startPostgres();
try {
  const url = postgres.url;
  await migrate({ connectionString: url });

  // --- create → running → completed: PostgresJobStore and pg-boss, rounds interleaved ----------
  const storePool = countingPool(url);
  const store = new PostgresJobStore({ pool: storePool, sweepIntervalMs: 0 });
  let serial = 0;
  const oursRound = (count: number) =>
    timed(count, async () => {
      const jobId = `bench_${serial++}`;
      const { job } = await store.create({
        jobId,
        ownerId: 'bench',
        invocationId: `inv_${jobId}`,
        actionId: 'export',
        actionName: 'Export',
        createdAt: new Date().toISOString(),
        status: 'queued',
        payload: { callbacks: {} },
      });
      const running = await store.update(jobId, job.version, { status: 'running' });
      if (!running.ok) throw new Error('running failed');
      const done = await store.update(jobId, running.job.version, {
        status: 'completed',
        outputText: 'done',
      });
      if (!done.ok) throw new Error('completed failed');
    });
  const boss = new PgBoss({ connectionString: url, max: POOL, schedule: false });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('bench');
  const bossRound = (count: number) =>
    timed(count, async () => {
      await boss.send('bench', { at: Date.now() });
      const [job] = await boss.fetch('bench');
      if (job) await boss.complete('bench', job.id);
    });
  // Warm-up (connections, plan caches), then ROUNDS alternating rounds; the median of each.
  await oursRound(Math.min(200, JOBS));
  await bossRound(Math.min(200, JOBS));
  const oursRates: number[] = [];
  const bossRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    storePool.count = 0;
    const perRound = Math.ceil(JOBS / ROUNDS);
    oursRates.push((await oursRound(perRound)).perSecond);
    if (round === 0) perJob = storePool.count / perRound;
    bossRates.push((await bossRound(perRound)).perSecond);
  }
  const ours = median(oursRates);
  const bossOne = median(bossRates);
  await store.close();
  await storePool.end();

  // pg-boss as its API is meant for throughput: send, then fetch and complete in batches.
  await boss.createQueue('bench-batch');
  const batched = await timed(JOBS, async () => {
    await boss.send('bench-batch', { at: Date.now() });
  });
  const batchStarted = performance.now();
  let completed = 0;
  const drain = async (): Promise<void> => {
    for (;;) {
      const jobs = await boss.fetch('bench-batch', { batchSize: CONCURRENCY });
      if (jobs.length === 0) return;
      await boss.complete(
        'bench-batch',
        jobs.map((job) => job.id),
      );
      completed += jobs.length;
    }
  };
  await Promise.all(Array.from({ length: 4 }, drain));
  const bossBatch = JOBS / (batched.seconds + (performance.now() - batchStarted) / 1000);
  await boss.stop({ graceful: false });

  // --- accepted async invokes through the gateway -------------------------------------------
  const gatewayPool = countingPool(url);
  const jobStore = new PostgresJobStore({ pool: gatewayPool });
  const recordStore = new PostgresRecordStore({ pool: gatewayPool });
  const quick = defineAction({
    id: 'quick',
    input: v.object({}),
    executionMode: 'async',
    run: () => ({ outputText: 'ok' }),
  });
  const gateway = createGateway({
    gateway: { id: 'bench', name: 'Bench' },
    actions: [quick],
    auth: { tokens: ['bench-token'] },
    jobStore,
    recordStore,
    callbacks: false,
    quotas: { activeJobs: 1_000_000 },
  });
  let accepted = 0;
  const until = performance.now() + INVOKE_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const response = await gateway.fetch(
          new Request('http://bench.local/v1/invoke', {
            method: 'POST',
            headers: { authorization: 'Bearer bench-token', 'content-type': 'application/json' },
            body: JSON.stringify(invokeBody('quick', {})),
          }),
        );
        const body = (await response.json()) as { status?: string };
        if (body.status === 'accepted') accepted += 1;
      }
    }),
  );
  const invokes = accepted / (INVOKE_MS / 1000);
  await gateway.idle();
  const perInvoke = gatewayPool.count / accepted;
  if (process.env.BENCH_VERBOSE)
    for (const [kind, n] of gatewayPool.kinds) console.log(`${(n / accepted).toFixed(2)}  ${kind}`);
  await gateway.close();
  await Promise.all([jobStore.close(), recordStore.close()]);
  await gatewayPool.end();

  const rows = [
    ['PostgresJobStore (create → running → completed, one by one)', ours],
    ['pg-boss 12 (send → fetch → complete, one by one)', bossOne],
    ['pg-boss 12 (send; fetch + complete in batches of C)', bossBatch],
  ] as const;
  console.log(
    `\nPostgreSQL 15 on loopback, ${JOBS} jobs, ${CONCURRENCY} concurrent, pools of ${POOL}${smoke ? ' (smoke)' : ''}`,
  );
  for (const [name, value] of rows)
    console.log(`${name.padEnd(62)} ${value.toFixed(0).padStart(7)} jobs/s`);
  console.log(
    `ratio PostgresJobStore / pg-boss one by one: ${(ours / bossOne).toFixed(2)}; / pg-boss batched: ${(ours / bossBatch).toFixed(2)}`,
  );
  console.log(
    `statements per job (PostgresJobStore): ${perJob.toFixed(2)} (create, running, completed; pg-boss: send, fetch, complete)`,
  );
  console.log(
    `accepted async invokes/s through createGateway on Postgres: ${invokes.toFixed(0)} (${perInvoke.toFixed(2)} statements per invoke, its job run to the end included)`,
  );
  if (completed !== JOBS) throw new Error(`pg-boss batch drained ${completed} of ${JOBS}`);
  if (!smoke && ours < bossOne) process.exitCode = 1; // the acceptance bar: at least pg-boss's rate for the same work
} finally {
  await postgres.stop();
}

/** A pg.Pool whose statements are counted (for statements per job). */
function countingPool(connectionString: string) {
  const pool = new pg.Pool({ connectionString, max: POOL });
  const counted = {
    count: 0,
    /** Statements by their first words (BENCH_VERBOSE=1 prints them). */
    kinds: new Map<string, number>(),
    query: (config: { text: string; values?: readonly unknown[] }) => {
      counted.count += 1;
      const kind = config.text.replace(/\s+/g, ' ').trim().slice(0, 60);
      counted.kinds.set(kind, (counted.kinds.get(kind) ?? 0) + 1);
      return pool.query(config as pg.QueryConfig);
    },
    end: () => pool.end(),
    options: pool.options,
  };
  return counted;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs `work(i)` for i < count on CONCURRENCY workers; jobs per second. */
async function timed(
  count: number,
  work: (i: number) => Promise<void>,
): Promise<{ perSecond: number; seconds: number }> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: count / seconds, seconds };
}
