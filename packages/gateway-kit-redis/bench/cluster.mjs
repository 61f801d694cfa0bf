// Benchmark of the Redis job store on a Redis Cluster, in one run on this machine:
//  1. distribution: JOBS jobs from PRINCIPALS principals (create → running → completed) on a
//     local 3-primary/3-replica cluster; prints each primary's share of the keys (DBSIZE) and of
//     the commands it processed (INFO stats) during the run. Acceptance of issue 23: no primary
//     holds more than 50 % of the keys.
//  2. jobs/s on one redis-server vs the cluster, and on the cluster with `waitForReplicas`
//     (WAIT 1 after creation, terminal write and outbox writes): the cost of the durability option.
// Starts its own servers on free loopback ports (no persistence) and stops them.
// Usage: node bench/cluster.mjs [--smoke]   (BENCH_JOBS, BENCH_PRINCIPALS, BENCH_CONCURRENCY override)
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createClient } from 'redis';
import { RedisJobStore } from '../dist/index.js';
import { startCluster } from '../test/redis-cluster.ts';
import { startRedis } from '../test/redis-server.ts';

const smoke = process.argv.includes('--smoke');
const JOBS = Number(process.env.BENCH_JOBS ?? (smoke ? 200 : 2_000));
const PRINCIPALS = Number(process.env.BENCH_PRINCIPALS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);

const newJob = (jobId, i) => ({
  jobId,
  ownerId: `principal-${i % PRINCIPALS}`,
  invocationId: `inv-${jobId}`,
  actionId: 'export-report',
  actionName: 'Export report',
  status: 'queued',
  createdAt: new Date().toISOString(),
  payload: { input: { accountId: `acc_${i}`, period: '2025-Q1' } },
});

/** Drives JOBS jobs through create → running → completed with CONCURRENCY in flight; jobs/s. */
async function throughput(store) {
  let next = 0;
  const worker = async () => {
    while (next < JOBS) {
      const i = next++;
      // Ids as the gateway makes them: job_<32 random hex>.
      const { job } = await store.create(newJob(`job_${randomBytes(16).toString('hex')}`, i));
      const running = await store.update(job.jobId, job.version, { status: 'running' });
      await store.update(job.jobId, running.job.version, {
        status: 'completed',
        result: { outputText: 'done' },
      });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return JOBS / ((performance.now() - started) / 1000);
}

async function nodeStats(url) {
  const client = createClient({ url });
  await client.connect();
  const keys = await client.dbSize();
  const info = await client.info('stats');
  await client.close();
  return { keys, commands: Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0) };
}

const percent = (part, whole) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
const quiet = () => {};

console.log(
  `Redis job store on a Redis Cluster: ${JOBS} jobs from ${PRINCIPALS} principals, ${CONCURRENCY} in flight; ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}`,
);

const single = await startRedis();
const cluster = await startCluster();
try {
  const seeds = { cluster: { rootNodes: cluster.urls.map((url) => ({ url })) } };

  // 1. Distribution (first: the cluster is empty, so DBSIZE counts this run's keys only).
  const primaries = await cluster.primaries();
  const before = await Promise.all(primaries.map(({ node }) => nodeStats(node.url)));
  const store = new RedisJobStore({ ...seeds, sweepIntervalMs: 0, onError: quiet });
  const clusterRate = await throughput(store);
  await store.close();
  const after = await Promise.all(primaries.map(({ node }) => nodeStats(node.url)));
  const keys = after.map((stats) => stats.keys);
  const commands = after.map((stats, i) => stats.commands - before[i].commands);
  const totalKeys = keys.reduce((a, b) => a + b, 0);
  const totalCommands = commands.reduce((a, b) => a + b, 0);
  console.log('\nprimary            keys            commands');
  for (const [i, { node }] of primaries.entries())
    console.log(
      `127.0.0.1:${node.port}`.padEnd(19) +
        `${keys[i]} (${percent(keys[i], totalKeys)})`.padEnd(16) +
        `${commands[i]} (${percent(commands[i], totalCommands)})`,
    );
  const largest = Math.max(...keys) / Math.max(1, totalKeys);
  console.log(
    `largest share of keys: ${percent(Math.max(...keys), totalKeys)} — acceptance (≤ 50 %): ${largest <= 0.5 ? 'met' : 'NOT MET'}`,
  );

  // 2. Throughput: one node vs the cluster, and the cost of waitForReplicas.
  const singleStore = new RedisJobStore({ url: single.url, sweepIntervalMs: 0, onError: quiet });
  const singleRate = await throughput(singleStore);
  await singleStore.close();
  const durable = new RedisJobStore({
    ...seeds,
    prefix: 'svc:gw:durable:',
    sweepIntervalMs: 0,
    onError: quiet,
    waitForReplicas: { replicas: 1, timeoutMs: 500 },
  });
  const durableRate = await throughput(durable);
  await durable.close();
  console.log('\nstore                                   jobs/s   vs one node');
  const row = (label, rate) =>
    console.log(
      `${label.padEnd(40)}${rate.toFixed(0).padStart(6)}   ${(rate / singleRate).toFixed(2)}x`,
    );
  row('one redis-server', singleRate);
  row('cluster (3 primaries + 3 replicas)', clusterRate);
  row('cluster, waitForReplicas 1', durableRate);
} finally {
  await cluster.stop();
  await single.stop();
}
