// `pnpm bench` (second part): async invokes on one Redis, the kit against the gateway a team
// writes by hand on node:http + BullMQ (bench/async/*-server.mjs), in one run, alternating order.
//
// Per server and round: a fresh Redis database, a warm-up, then
//  1. BENCH_JOBS jobs end to end: submitted with 64 in flight, then the run waits until Redis is
//     idle and reads every job resource once. Printed: the time from the first submit to the last
//     job's completion, completion latency p50/p99 (the job's own updatedAt − createdAt), server
//     CPU per job, Redis commands per job (INFO commandstats, the scripts among them) and Redis
//     bytes per finished job (used_memory). First, so that both stores hold only the warm-up's
//     jobs, far below their retention count: run after 10 s of load, the store that accepted more
//     than the retention count would be evicting there, and bytes per job would read as 0.
//  2. after the backlog drained, accepted/s: 64 connections POST the same async invoke for
//     BENCH_SECONDS (closed loop, every answer checked to be an accepted job), CPU µs per accepted
//     job of the server, of Redis and of the load generator (the last two share core 1: their sum
//     is what that core gives a job). Each store evicts past its retention count as it would in
//     production, and pays for it here.
// The server runs pinned to core 0; redis-server, the load generator and this runner to core 1
// (where taskset exists). BENCH_REDIS_CORE=0 pins redis-server beside the server instead: the
// gateway and its Redis then share core 0, so accepted/s is what one core running both gives,
// and the load generator has core 1 to itself. Starts its own redis-server (no persistence) and
// stops it. Env: BENCH_SECONDS (10), BENCH_JOBS (2000), BENCH_ROUNDS (3), BENCH_REDIS_CORE (1).
// `--smoke`: ~1 s runs.
import { execFileSync, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { ACCEPTED_PREFIX, BODY, REQUEST_HEADERS } from './async/fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const smoke = process.argv.includes('--smoke');
const env = (name, full, short) => Number(process.env[name] ?? (smoke ? short : full));
const config = {
  seconds: env('BENCH_SECONDS', 10, 1),
  jobs: env('BENCH_JOBS', 2000, 200),
  rounds: env('BENCH_ROUNDS', 3, 1),
  warmup: env('BENCH_WARMUP', 2, 1),
  connections: 64,
  redisCore: Number(process.env.BENCH_REDIS_CORE ?? 1),
};
if (config.redisCore !== 0 && config.redisCore !== 1) throw new Error('BENCH_REDIS_CORE is 0 or 1');
const SERVERS = [
  { key: 'kit', label: 'gateway-kit + RedisJobStore', file: 'async/kit-server.mjs' },
  { key: 'bullmq', label: 'node:http + BullMQ 6', file: 'async/bullmq-server.mjs' },
];

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return cpus().length >= 2;
  } catch {
    return false;
  }
})();
/** Where the processes run, by BENCH_REDIS_CORE, as the header says it. */
const LAYOUT = hasTaskset
  ? ['server + Redis on core 0, load on core 1', 'server on core 0, Redis + load on core 1'][
      config.redisCore
    ]
  : 'no pinning';
const pin = (pid, core) => {
  if (hasTaskset)
    execFileSync('taskset', ['-a', '-pc', String(core), String(pid)], { stdio: 'ignore' });
};
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
const cpuMicros = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1e6;
};
const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

function freePort() {
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
  pin(child.pid, config.redisCore);
  const client = createClient({ url: `redis://127.0.0.1:${port}` });
  await client.connect();
  return {
    url: `redis://127.0.0.1:${port}`,
    client,
    pid: child.pid,
    stop: () => child.kill('SIGKILL'),
  };
}

function startServer(server, redisUrl) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, server.file), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, REDIS_URL: redisUrl },
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${server.label} exited early (${code})`)));
    child.once('message', ({ port }) => {
      child.removeAllListeners('exit');
      pin(child.pid, 0);
      resolve({ child, base: `http://127.0.0.1:${port}` });
    });
  });
}

function startLoadGenerator() {
  const child = fork(join(here, '../../gateway-kit/bench/load.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  pin(child.pid, 1);
  return {
    child,
    run: (job) =>
      new Promise((resolve, reject) => {
        child.once('message', (reply) =>
          reply.ok ? resolve(reply.result) : reject(new Error(reply.error)),
        );
        child.send(job);
      }),
  };
}

/** Redis counters: commands (without our own INFO calls), script calls, memory. */
async function redisCounters(client) {
  const stats = await client.info('commandstats');
  let commands = 0;
  let scripts = 0;
  for (const [, name, calls] of stats.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) {
    if (name === 'info') continue;
    commands += Number(calls);
    if (/^(evalsha|eval|evalsha_ro|eval_ro|fcall|fcall_ro)$/.test(name)) scripts += Number(calls);
  }
  const memory = Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1]);
  return { commands, scripts, memory };
}

/** Waits until Redis processes fewer than 50 commands in 500 ms (background timers only). */
async function untilIdle(client, limitMs = 120_000) {
  const deadline = Date.now() + limitMs;
  let last = (await redisCounters(client)).commands;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = (await redisCounters(client)).commands;
    if (now - last < 50) return;
    if (Date.now() > deadline) throw new Error('Redis did not become idle');
    last = now;
  }
}

async function submit(base, count) {
  const urls = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await fetch(`${base}/v1/invoke`, {
        method: 'POST',
        headers: REQUEST_HEADERS,
        body: BODY,
      });
      const text = await response.text();
      if (response.status !== 200 || !text.startsWith(ACCEPTED_PREFIX)) {
        throw new Error(`invoke answered ${response.status}: ${text}`);
      }
      // The path of the job's statusUrl (the kit's manifest URL is configured without a port).
      urls.push(`${base}${new URL(JSON.parse(text).job.statusUrl).pathname}`);
    }
  };
  await Promise.all(Array.from({ length: config.connections }, worker));
  return urls;
}

async function readJobs(urls) {
  const jobs = [];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const response = await fetch(urls[next++], { headers: REQUEST_HEADERS });
      jobs.push(await response.json());
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return jobs;
}

async function measure(server, redis, generator) {
  await redis.client.flushAll();
  const running = await startServer(server, redis.url);
  try {
    const load = (seconds) =>
      generator.run({
        url: `${running.base}/v1/invoke`,
        seconds,
        connections: config.connections,
        body: BODY,
        headers: REQUEST_HEADERS,
        expectPrefix: ACCEPTED_PREFIX,
      });
    await load(config.warmup);
    await untilIdle(redis.client);
    // 1. jobs end to end
    const before = await redisCounters(redis.client);
    const cpu0 = cpuMicros(running.child.pid);
    const started = Date.now();
    const urls = await submit(running.base, config.jobs);
    await untilIdle(redis.client);
    const after = await redisCounters(redis.client);
    const cpu = (cpuMicros(running.child.pid) - cpu0) / config.jobs;
    const jobs = await readJobs(urls);
    const unfinished = jobs.filter((job) => job.status !== 'completed');
    if (unfinished.length > 0) {
      throw new Error(
        `${server.label}: ${unfinished.length} jobs not completed: ${JSON.stringify(unfinished[0])}`,
      );
    }
    await untilIdle(redis.client);
    // 2. accepted/s
    const cpuBefore = cpuMicros(running.child.pid);
    const redisBefore = cpuMicros(redis.pid);
    const loadBefore = cpuMicros(generator.child.pid);
    const accepted = await load(config.seconds);
    if (accepted.bad > 0)
      throw new Error(`${server.label}: ${accepted.bad} answers were not accepted jobs`);
    const acceptCpu = (cpuMicros(running.child.pid) - cpuBefore) / accepted.requests;
    const acceptRedisCpu = (cpuMicros(redis.pid) - redisBefore) / accepted.requests;
    const acceptLoadCpu = (cpuMicros(generator.child.pid) - loadBefore) / accepted.requests;
    const latencies = jobs
      .map((job) => Date.parse(job.updatedAt) - Date.parse(job.createdAt))
      .sort((x, y) => x - y);
    const lastDone = Math.max(...jobs.map((job) => Date.parse(job.updatedAt)));
    return {
      acceptedPerSecond: accepted.rps,
      acceptP99Us: accepted.latencyUs.p99,
      acceptCpuUs: acceptCpu,
      acceptRedisCpuUs: acceptRedisCpu,
      acceptLoadCpuUs: acceptLoadCpu,
      completedInMs: lastDone - started,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuPerJobUs: cpu,
      commandsPerJob: (after.commands - before.commands) / config.jobs,
      scriptsPerJob: (after.scripts - before.scripts) / config.jobs,
      bytesPerJob: (after.memory - before.memory) / config.jobs,
    };
  } finally {
    running.child.kill();
  }
}

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const redis = await startRedis();
const generator = startLoadGenerator();
pin(process.pid, 1);
try {
  console.log(
    `async invokes on Redis — Node ${process.version}, ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}` +
      `${smoke ? ' — SMOKE (figures not meaningful)' : ''}\n` +
      `${config.rounds} rounds, order alternating; ${config.jobs} jobs end to end then ${config.seconds} s of accepts per server; ` +
      `${config.connections} connections; ${LAYOUT}\n`,
  );
  const results = Object.fromEntries(SERVERS.map((s) => [s.key, []]));
  for (let r = 0; r < config.rounds; r++) {
    const order = r % 2 ? [...SERVERS].reverse() : SERVERS;
    for (const server of order) results[server.key].push(await measure(server, redis, generator));
    console.log(
      `round ${r + 1}: ${order.map((s) => `${s.key} ${fmt(results[s.key][r].acceptedPerSecond)} accepted/s`).join(', ')}`,
    );
  }
  const rows = [
    ['accepted/s', 'acceptedPerSecond', 0, 'higher'],
    ['accept p99 µs', 'acceptP99Us', 0, 'lower'],
    ['server CPU µs per accept', 'acceptCpuUs', 1, 'lower'],
    ['  Redis CPU µs per accept', 'acceptRedisCpuUs', 1, 'lower'],
    ['  load generator CPU µs per accept', 'acceptLoadCpuUs', 1, 'lower'],
    [`${config.jobs} jobs completed in ms`, 'completedInMs', 0, 'lower'],
    ['completion p50 ms', 'p50', 0, 'lower'],
    ['completion p99 ms', 'p99', 0, 'lower'],
    ['server CPU µs per job', 'cpuPerJobUs', 1, 'lower'],
    ['Redis commands per job', 'commandsPerJob', 1, 'lower'],
    ['  of which scripts', 'scriptsPerJob', 1, 'lower'],
    ['Redis bytes per finished job', 'bytesPerJob', 0, 'lower'],
  ];
  console.log(
    `\n| median of ${config.rounds} rounds | ${SERVERS.map((s) => s.label).join(' | ')} | kit ÷ BullMQ |`,
  );
  console.log(`|---|${SERVERS.map(() => '---:').join('|')}|---:|`);
  for (const [label, field, digits] of rows) {
    const values = SERVERS.map((s) => median(results[s.key].map((x) => x[field])));
    console.log(
      `| ${label} | ${values.map((x) => fmt(x, digits)).join(' | ')} | ${fmt(values[0] / values[1], 2)} |`,
    );
  }
} finally {
  generator.child.kill();
  await redis.client.quit().catch(() => {});
  redis.stop();
}
