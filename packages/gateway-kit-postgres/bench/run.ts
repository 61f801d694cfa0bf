// pnpm bench (or bench:smoke): PostgresJobStore against pg-boss on the same PostgreSQL, same run.
// Starts its own PostgreSQL 15 (initdb, pg_ctl; fsync off, as in the tests) on a free loopback port.
//
// 1. jobs/s create → running → completed: C concurrent callers, each job created, moved to
//    running and completed one call at a time (as a gateway does with each accepted invoke);
//    PostgresJobStore coalesces the concurrent writes of its callers (its write batcher).
// 2. pg-boss 12 the same work one job per call (send → fetch → complete), and pg-boss as its docs
//    recommend for throughput: jobs sent one by one as they arrive (C producers) while 4 workers
//    fetch with `batchSize: C` and complete each batch with one `complete(name, ids)`.
// 3. accepted async invokes/s through createGateway on the Postgres stores.
// 4. statements per job and per invoke (counted on the stores' pool), and CPU per job (this
//    process + every PostgreSQL process, from /proc): a figure that holds on a busy machine.
// The three job runs alternate round by round, in a rotating order, after a warm-up; the median
// round of each is printed, with the ratios, so that none profits from the machine's moods.
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
const INVOKE_MS = smoke ? 1_000 : 4_000;
const POOL = 10;
const ROUNDS = smoke ? 1 : 5;
/** pg-boss workers of the batched run, each fetching up to CONCURRENCY jobs at once. */
const BOSS_WORKERS = 4;

interface Round {
  readonly perSecond: number;
  /** CPU ms per job: this process plus the PostgreSQL server. */
  readonly cpuMsPerJob: number;
  readonly statementsPerJob?: number;
}

const postgres = await startPostgres();
try {
  const url = postgres.url;
  await migrate({ connectionString: url });
  /** Runs `run(count)`, measuring wall time and CPU (ours and the server's). */
  const measure = async (count: number, run: () => Promise<void>): Promise<Round> => {
    const cpu = process.cpuUsage();
    const server = postgres.cpuSeconds();
    const started = performance.now();
    await run();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const nodeMs = (used.user + used.system) / 1000;
    const serverMs = (postgres.cpuSeconds() - server) * 1000;
    const cpuMs = nodeMs + serverMs;
    if (process.env.BENCH_VERBOSE)
      console.log(
        `  ${count} jobs: ${(count / seconds).toFixed(0)}/s, CPU ms/job node ${(nodeMs / count).toFixed(3)}, postgres ${(serverMs / count).toFixed(3)}`,
      );
    return { perSecond: count / seconds, cpuMsPerJob: cpuMs / count };
  };

  // --- create → running → completed ----------------------------------------------------------
  const storePool = countingPool(url);
  const store = new PostgresJobStore({ pool: storePool, sweepIntervalMs: 0 });
  let serial = 0;
  const ours = async (count: number): Promise<Round> => {
    storePool.count = 0;
    const round = await measure(count, () =>
      workers(count, async () => {
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
      }),
    );
    return { ...round, statementsPerJob: storePool.count / count };
  };

  const boss = new PgBoss({ connectionString: url, max: POOL, schedule: false });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('bench');
  await boss.createQueue('bench-batch');
  await boss.createQueue('bench-bulk');
  const bossOne = (count: number): Promise<Round> =>
    measure(count, () =>
      workers(count, async () => {
        await boss.send('bench', { at: Date.now() });
        const [job] = await boss.fetch('bench');
        if (job) await boss.complete('bench', job.id);
      }),
    );
  /** Batched workers; producers send one job per call, or (`bulk`) insert CONCURRENCY at once. */
  const bossBatched =
    (queue: string, bulk: boolean) =>
    (count: number): Promise<Round> =>
      measure(count, async () => {
        let completed = 0;
        let sent = 0;
        const producing = bulk
          ? (async () => {
              while (sent < count) {
                const size = Math.min(CONCURRENCY, count - sent);
                sent += size;
                await boss.insert(
                  queue,
                  Array.from({ length: size }, () => ({ data: { at: Date.now() } })),
                );
              }
            })()
          : workers(count, async () => {
              await boss.send(queue, { at: Date.now() });
            });
        const drain = async (): Promise<void> => {
          while (completed < count) {
            const jobs = await boss.fetch(queue, { batchSize: CONCURRENCY });
            if (jobs.length === 0) {
              // Nothing sent yet: look again in 1 ms (pg-boss's own workers poll every 0.5 s at
              // the fastest, or are woken by NOTIFY).
              await new Promise((resolve) => setTimeout(resolve, 1));
              continue;
            }
            await boss.complete(
              queue,
              jobs.map((job) => job.id),
            );
            completed += jobs.length;
          }
        };
        await Promise.all([producing, ...Array.from({ length: BOSS_WORKERS }, drain)]);
      });

  const runs = [
    { name: 'PostgresJobStore', run: ours, rounds: [] as Round[] },
    { name: 'pg-boss one by one', run: bossOne, rounds: [] as Round[] },
    { name: 'pg-boss batched', run: bossBatched('bench-batch', false), rounds: [] as Round[] },
    { name: 'pg-boss bulk', run: bossBatched('bench-bulk', true), rounds: [] as Round[] },
  ];
  // Warm-up (connections, plan caches), then ROUNDS rounds in a rotating order.
  for (const { run } of runs) await run(Math.min(300, JOBS));
  const perRound = Math.ceil(JOBS / ROUNDS);
  for (let round = 0; round < ROUNDS; round++)
    for (let i = 0; i < runs.length; i++) {
      const entry = runs[(round + i) % runs.length]!;
      entry.rounds.push(await entry.run(perRound));
    }
  const [oursResult, bossOneResult, bossBatchResult, bossBulkResult] = runs.map(({ rounds }) => ({
    perSecond: median(rounds.map((r) => r.perSecond)),
    cpuMsPerJob: median(rounds.map((r) => r.cpuMsPerJob)),
    statementsPerJob: median(rounds.map((r) => r.statementsPerJob ?? 0)),
  })) as [Required<Round>, Required<Round>, Required<Round>, Required<Round>];
  await store.close();
  await storePool.end();
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
  /** Answers other than `accepted` (none expected), by status. */
  const statuses = new Map<string, number>();
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
        else statuses.set(String(body.status), (statuses.get(String(body.status)) ?? 0) + 1);
      }
    }),
  );
  const invokes = accepted / (INVOKE_MS / 1000);
  await gateway.idle();
  const perInvoke = gatewayPool.count / accepted;
  if (statuses.size > 0) console.log('answers other than accepted:', Object.fromEntries(statuses));
  if (process.env.BENCH_VERBOSE)
    for (const [kind, n] of gatewayPool.kinds) console.log(`${(n / accepted).toFixed(2)}  ${kind}`);
  await gateway.close();
  await Promise.all([jobStore.close(), recordStore.close()]);
  await gatewayPool.end();

  const rows = [
    ['PostgresJobStore (create → running → completed, concurrent writes coalesced)', oursResult],
    ['pg-boss 12 (send → fetch → complete, one job per call)', bossOneResult],
    [
      `pg-boss 12 (send; fetch batchSize ${CONCURRENCY} + complete(ids), ${BOSS_WORKERS} workers)`,
      bossBatchResult,
    ],
    [
      `pg-boss 12 (insert ${CONCURRENCY} at once; the same workers) [bulk load, not the bar]`,
      bossBulkResult,
    ],
  ] as const;
  const load = (await import('node:os'))
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  console.log(
    `\nPostgreSQL 15 on loopback, ${ROUNDS} rounds of ${perRound} jobs each, ${CONCURRENCY} concurrent, pools of ${POOL}, load average ${load}${smoke ? ' (smoke)' : ''}`,
  );
  console.log(`${''.padEnd(84)} ${'jobs/s'.padStart(7)}  CPU ms/job (node + postgres)`);
  for (const [name, result] of rows)
    console.log(
      `${name.padEnd(84)} ${result.perSecond.toFixed(0).padStart(7)}  ${result.cpuMsPerJob.toFixed(3)}`,
    );
  const ratio = oursResult.perSecond / bossBatchResult.perSecond;
  console.log(
    `ratio PostgresJobStore / pg-boss batched: ${ratio.toFixed(2)} jobs/s, ${(bossBatchResult.cpuMsPerJob / oursResult.cpuMsPerJob).toFixed(2)} by CPU per job; / pg-boss one by one: ${(oursResult.perSecond / bossOneResult.perSecond).toFixed(2)} jobs/s`,
  );
  console.log(
    `statements per job (PostgresJobStore): ${oursResult.statementsPerJob.toFixed(2)} (3 writes: create, running, completed; pg-boss batched: 1 send + 2 per batch)`,
  );
  console.log(
    `accepted async invokes/s through createGateway on Postgres: ${invokes.toFixed(0)} (${perInvoke.toFixed(2)} statements per invoke, its job run to the end included)`,
  );
  if (!smoke && ratio < 1) process.exitCode = 1; // the acceptance bar: at least batched pg-boss's rate
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

/** Runs `work()` count times on CONCURRENCY concurrent callers. */
async function workers(count: number, work: () => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await work();
    }),
  );
}
