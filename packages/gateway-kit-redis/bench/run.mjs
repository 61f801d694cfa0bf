// Benchmark of the Redis job store against MemoryJobStore, in one run on this machine:
//  1. job throughput: create → running → completed, `concurrency` jobs in flight, in jobs/s and
//     store ops/s (3 writes per job), for RedisJobStore and MemoryJobStore;
//  2. cross-instance cancel latency: requestCancel on store A → onCancel fired on store B
//     (two connections each, pub/sub in between), p50/p99 over sequential cancels;
//  3. Redis memory per finished job (MEMORY USAGE) with a ~400-byte payload.
// Starts its own redis-server on a free loopback port (no persistence) and stops it.
// Usage: node bench/run.mjs [--smoke]   (BENCH_JOBS, BENCH_CANCELS, BENCH_CONCURRENCY override)
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { MemoryJobStore } from '@svc/gateway-kit';
import { createClient } from 'redis';
import { RedisJobStore } from '../dist/index.js';
import { DEFAULT_BUCKETS, KeyLayout } from '../src/key-layout.ts';

const smoke = process.argv.includes('--smoke');
const JOBS = Number(process.env.BENCH_JOBS ?? (smoke ? 300 : 20_000));
const CANCELS = Number(process.env.BENCH_CANCELS ?? (smoke ? 30 : 1_000));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);

const payloadFor = (i) => ({
  input: { accountId: `acc_${i}`, period: '2025-Q1', format: 'csv', includeArchived: false },
  callbacks: {
    jobResultUrl: `https://assistant.example.com/api/callbacks/jobs/${i}/result`,
    authorization: 'cb_2f6a1c0e9d8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b',
  },
  meeting: { id: `m_${i % 97}`, roomName: 'Weekly revenue sync' },
  traceId: `trace-${i.toString(16).padStart(12, '0')}`,
  requestedBy: { locale: 'en-GB', email: 'alex.morgan@example.com' },
});
const newJob = (jobId, i) => ({
  jobId,
  ownerId: 'owner-1',
  invocationId: `inv-${jobId}`,
  actionId: 'export-report',
  actionName: 'Export report',
  status: 'queued',
  createdAt: new Date().toISOString(),
  payload: payloadFor(i),
});

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

/** Drives `JOBS` jobs through create → running → completed with `CONCURRENCY` in flight. */
async function throughput(store, label) {
  let next = 0;
  const worker = async () => {
    while (next < JOBS) {
      const i = next++;
      const { job } = await store.create(newJob(`${label}-${i}`, i));
      const running = await store.update(job.jobId, job.version, { status: 'running' });
      const done = await store.update(job.jobId, running.job.version, {
        status: 'completed',
        outputText: 'Report exported.',
      });
      if (!done.ok) throw new Error(`job ${job.jobId} did not complete`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { jobsPerSecond: JOBS / seconds, opsPerSecond: (3 * JOBS) / seconds };
}

/** requestCancel on A → onCancel on B, one at a time. */
async function cancelLatency(a, b) {
  const samples = [];
  for (let i = 0; i < CANCELS; i++) {
    const jobId = `cancel-${i}`;
    await a.create({ ...newJob(jobId, i), status: 'running' });
    const fired = new Promise((resolve) => b.onCancel(jobId, () => resolve(performance.now())));
    // The first listener subscribes B; give the subscription a moment once.
    if (i === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    // B re-reads the job when a listener registers; a read on the same connection after it
    // means that check is done, so what is timed is the pub/sub path alone.
    await b.get(jobId);
    const started = performance.now();
    await a.requestCancel(jobId);
    samples.push((await fired) - started);
  }
  samples.sort((x, y) => x - y);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99), max: samples.at(-1) };
}

const redis = await startRedis();
try {
  const prefix = `bench:${Date.now()}:`;
  const options = { url: redis.url, prefix, sweepIntervalMs: 0, maxJobs: 10_000_000 };
  const memory = new MemoryJobStore({ maxJobs: JOBS + 10 });
  const redisStore = new RedisJobStore(options);
  const other = new RedisJobStore(options);
  // Warm-up: connections, script cache, JIT.
  await throughput(new MemoryJobStore(), 'warm-memory');
  await redisStore.get('warm-up');

  const memoryResult = await throughput(memory, 'memory');
  const redisResult = await throughput(redisStore, 'redis');
  const latency = await cancelLatency(redisStore, other);

  const raw = createClient({ url: redis.url });
  await raw.connect();
  const perJob = await raw.memoryUsage(new KeyLayout(prefix, DEFAULT_BUCKETS).job('redis-0'));
  const info = await raw.info('memory');
  const used = /used_memory:(\d+)/.exec(info)?.[1];
  raw.destroy();
  await Promise.all([redisStore.close(), other.close(), memory.close()]);

  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  console.log(
    `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `jobs ${JOBS}, concurrency ${CONCURRENCY}, cancels ${CANCELS}${smoke ? ' (smoke)' : ''}`,
  );
  console.log('');
  console.log('| store | jobs/s (create → running → completed) | store ops/s |');
  console.log('|---|---:|---:|');
  console.log(
    `| MemoryJobStore | ${fmt(memoryResult.jobsPerSecond)} | ${fmt(memoryResult.opsPerSecond)} |`,
  );
  console.log(
    `| RedisJobStore | ${fmt(redisResult.jobsPerSecond)} | ${fmt(redisResult.opsPerSecond)} |`,
  );
  console.log('');
  console.log(
    `cross-instance cancel latency (requestCancel on A → onCancel on B): p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms, max ${latency.max.toFixed(2)} ms`,
  );
  console.log(
    `redis memory: ${perJob} bytes per finished job (MEMORY USAGE, ~400-byte payload); used_memory ${used} bytes after ${JOBS + CANCELS} jobs`,
  );
} finally {
  redis.stop();
}
