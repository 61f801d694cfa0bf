// Counts, per async job, the gateway's calls into its stores (JobStore and RecordStore methods)
// and the Redis commands they cost (INFO commandstats), on the async benchmark's gateway and
// invoke. Counts, not timings: they do not move with the machine's load, so they show what a
// change to the job path saves even on a shared machine.
//
//   node bench/async/store-calls.mjs        # BENCH_JOBS (2000) jobs, 64 in flight
//
// Starts its own redis-server (no persistence) on a free loopback port and stops it.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createGateway, defineAction } from '@svc/gateway-kit';
import { createClient } from 'redis';
import { RedisJobStore, RedisRecordStore } from '../../dist/index.js';
import {
  ACCEPTED_PREFIX,
  ACTION,
  BODY,
  exportReport,
  KIT_JOB_STORE,
  REQUEST_HEADERS,
  ReportInput,
  TOKEN,
} from './fixtures.mjs';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);

const port = await new Promise((resolve, reject) => {
  const probe = createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const redisServer = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
await new Promise((resolve, reject) => {
  let output = '';
  redisServer.stdout.on('data', (chunk) => {
    output += chunk;
    if (output.includes('Ready to accept connections')) resolve();
  });
  redisServer.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
});
const url = `redis://127.0.0.1:${port}`;
const admin = createClient({ url });
await admin.connect();

/** Redis commands so far, by name (without INFO itself). */
async function commands() {
  const stats = await admin.info('commandstats');
  const byName = {};
  for (const [, name, calls] of stats.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g))
    if (name !== 'info') byName[name] = Number(calls);
  return byName;
}
const total = (byName) => Object.values(byName).reduce((sum, n) => sum + n, 0);

let calls = {};
/** The store with every method call counted under `label.method`. */
const counted = (label, store) =>
  new Proxy(store, {
    get(target, key) {
      const value = target[key];
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args) => {
        calls[`${label}.${key}`] = (calls[`${label}.${key}`] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });

const jobStore = new RedisJobStore({ url, prefix: 'bench:', ...KIT_JOB_STORE });
const recordStore = new RedisRecordStore({ url, prefix: 'bench:' });
await Promise.all([jobStore.ready(), recordStore.ready()]);
// As bench/async/kit-server.mjs, the stores counted.
const gateway = createGateway({
  gateway: { id: 'bench', name: 'Async benchmark gateway', url: 'http://127.0.0.1' },
  actions: [
    defineAction({ ...ACTION, input: ReportInput, executionMode: 'async', run: exportReport }),
  ],
  auth: { tokens: [TOKEN] },
  version: '2025-01-01',
  jobStore: counted('JobStore', jobStore),
  recordStore: counted('RecordStore', recordStore),
  quotas: { activeJobs: 100_000 },
});

async function submit(count) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await gateway.fetch(
        new Request('http://127.0.0.1/v1/invoke', {
          method: 'POST',
          headers: REQUEST_HEADERS,
          body: BODY,
        }),
      );
      const text = await response.text();
      if (!text.startsWith(ACCEPTED_PREFIX)) throw new Error(`invoke answered: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  await gateway.idle();
}

/** Until Redis runs fewer than 20 commands in 300 ms (the stores' background timers only). */
async function untilIdle() {
  let last = total(await commands());
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = total(await commands());
    if (now - last < 20) return;
    last = now;
  }
}

try {
  await submit(200); // warm-up: scripts loaded, connections open
  await untilIdle();
  calls = {};
  const before = await commands();
  await submit(JOBS);
  await untilIdle();
  const after = await commands();
  const perJob = (n) => (n / JOBS).toFixed(2);
  console.log(`${JOBS} async jobs through the gateway (64 in flight), per job:\n`);
  console.log('| store call | per job |\n|---|---:|');
  for (const [name, n] of Object.entries(calls).sort()) console.log(`| ${name} | ${perJob(n)} |`);
  console.log(`| **all store calls** | **${perJob(total(calls))}** |`);
  console.log('\n| Redis command | per job |\n|---|---:|');
  for (const name of Object.keys(after).sort()) {
    const n = after[name] - (before[name] ?? 0);
    if (n > 0) console.log(`| ${name} | ${perJob(n)} |`);
  }
  console.log(`| **all Redis commands** | **${perJob(total(after) - total(before))}** |`);
} finally {
  await gateway.close();
  await Promise.all([jobStore.close(), recordStore.close()]);
  await admin.quit().catch(() => {});
  redisServer.kill('SIGKILL');
}
