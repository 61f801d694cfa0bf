// `pnpm bench:held` (examples/node): what a caller can make the demo gateway *hold*, with the
// memory stores and with the Redis stores. The demo runs as `pnpm start` runs it (heap capped at
// 256 MiB) with two principals (GATEWAY_TOKEN and one EXTRA_GATEWAY_TOKENS entry). Each principal
// sends async `generate-report` jobs (60 s each) whose `context` is 64 KiB of the worst shapes: many
// empty objects, many short keys, deep arrays — the ones over the shape budget (`413`) and the
// heaviest that fit it (8 192 nodes, padded with a string up to 64 KiB) — up to its quotas
// (`429`: 100 active jobs, 8 MiB held), then cancels its oldest jobs and resubmits, for
// HELD_SECONDS.
//
// Fails (exit code 1) when the gateway process dies, on any answer that is not one of the documented
// envelopes (200 accepted, 413 payload_too_large, 429 quota_exceeded for an invoke; 200 or 409 for
// a cancel; 503 unavailable, retryable, when Redis did not answer within its command timeout, as a
// machine this loaded may make it), on a request that times out, or when the RSS (current or
// peak) passes the budget.
//
// Env: HELD_SECONDS (60; smoke 4), HELD_STORES (`memory,redis`), HELD_LANES (per principal, 16),
// HELD_RSS_BUDGET_MIB (384), REDIS_URL (else a redis-server is started on a free loopback port),
// HELD_HEAP=1 (also print the gateway's live heap after a full GC at the end: a diagnostic).
// Method and recorded figures: docs/benchmarks.md ("Held memory").
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryOf, startGateway } from './gateway-process.mjs';

const smoke = process.argv.includes('--smoke');
const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};
const config = {
  seconds: number('HELD_SECONDS', smoke ? 4 : 60),
  stores: (process.env.HELD_STORES ?? 'memory,redis').split(',').map((s) => s.trim()),
  lanes: number('HELD_LANES', 16),
  budgetMiB: number('HELD_RSS_BUDGET_MIB', 384),
  heapProbe: process.env.HELD_HEAP === '1',
};
const REQUEST_TIMEOUT_MS = 15_000;
const QUOTA = 100; // the demo's quotas.activeJobs (the default)
const CONTEXT_BYTES = 65_000; // under the 64 KiB context budget
const MAX_NODES = 8_192; // limits.maxJsonNodes (the default)

// --- the worst shapes of a 64 KiB context ------------------------------------------------------

const pad = (context) => {
  const size = JSON.stringify(context).length;
  return { ...context, pad: 'x'.repeat(Math.max(0, CONTEXT_BYTES - size - 10)) };
};
/** Objects, arrays and object members: what `limits.maxJsonNodes` counts. */
const nodesOf = (value) => {
  if (typeof value !== 'object' || value === null) return 0;
  if (Array.isArray(value)) return 1 + value.reduce((sum, item) => sum + nodesOf(item), 0);
  return 1 + Object.values(value).reduce((sum, item) => sum + 1 + nodesOf(item), 0);
};
const emptyObjects = (n) => ({ o: Array.from({ length: n }, () => ({})) });
const shortKeys = (n, value = () => 0) => {
  const keys = {};
  for (let i = 0; i < n; i++) keys[i.toString(36)] = value();
  return keys;
};
const deepArrays = (n) => {
  let deep = [];
  for (let i = 0; i < 60; i++) deep = [deep];
  return { d: Array.from({ length: n }, () => deep) };
};
const DEEP = 61; // nodes of one 60-deep array
/**
 * The densest 64 KiB contexts of each worst shape, and the heaviest that fit the shape budget
 * (padded with a string up to 64 KiB). Each must get 413 when over the budget, else `accepted`.
 */
const SHAPES = [
  { name: 'empty objects, as many as fit', context: emptyObjects(21_666) },
  { name: 'short keys → {}, as many as fit', context: shortKeys(7_222, () => ({})) },
  { name: 'deep arrays, as many as fit', context: deepArrays(520) },
  { name: 'short keys → 0, as many as fit', context: pad(shortKeys(7_800)) },
  { name: 'empty objects at the budget', context: pad(emptyObjects(MAX_NODES - 4)) },
  {
    name: 'deep arrays at the budget',
    context: pad(deepArrays(Math.floor((MAX_NODES - 4) / DEEP))),
  },
].map((shape) => {
  const nodes = nodesOf(shape.context);
  return {
    ...shape,
    nodes,
    bytes: JSON.stringify(shape.context).length,
    expect: nodes > MAX_NODES ? 413 : 200,
  };
});
for (const shape of SHAPES) {
  if (shape.bytes > 65_536) throw new Error(`${shape.name}: ${shape.bytes} bytes, over 64 KiB`);
}

// --- Redis ---------------------------------------------------------------------------------------

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
  const dir = mkdtempSync(join(tmpdir(), 'held-memory-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const open = await new Promise((resolve) => {
      const socket = new Socket();
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
    });
    if (open) break;
    if (tries > 100 || child.exitCode !== null) throw new Error('redis-server did not start');
    await sleep(50);
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// --- one run -------------------------------------------------------------------------------------

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function run(store) {
  const tokens = ['held-bench-token-a', 'held-bench-token-b'];
  let redis;
  const env = { GATEWAY_TOKEN: tokens[0], EXTRA_GATEWAY_TOKENS: tokens[1] };
  if (store === 'redis') {
    redis = process.env.REDIS_URL
      ? { url: process.env.REDIS_URL, stop: async () => {} }
      : await startRedis();
    env.REDIS_URL = redis.url;
  }
  const gateway = await startGateway(env, {
    nodeFlags: ['--max-old-space-size=256', '--max-semi-space-size=16'],
    heapProbe: config.heapProbe,
  });
  const failures = new Map(); // message → times
  const fail = (why) => {
    failures.set(why, (failures.get(why) ?? 0) + 1);
  };
  const counts = {};
  const count = (label) => {
    counts[label] = (counts[label] ?? 0) + 1;
  };
  let peakRss = 0;
  const sampler = setInterval(() => {
    if (gateway.exited() !== undefined) return;
    try {
      peakRss = Math.max(peakRss, memoryOf(gateway.pid).peak);
    } catch {}
  }, 500);

  const bodies = SHAPES.map((shape) => ({
    ...shape,
    body: (i) =>
      JSON.stringify({
        invocationId: `inv_held_${i}`,
        context: shape.context,
        meeting: { id: 'meeting_held', roomName: 'Held memory' },
        session: { id: 'session_held', mode: 'active' },
        action: { id: 'generate-report', input: { topic: 'held', delayMs: 60_000 } },
        callbacks: {},
      }),
  }));
  const request = async (path, token, body) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const json = await response.json().catch(() => undefined);
    return { status: response.status, json };
  };

  const endAt = Date.now() + config.seconds * 1000;
  let sequence = 0;
  const principal = async (token) => {
    const active = []; // this principal's accepted job ids, oldest first
    const lane = async () => {
      while (Date.now() < endAt && gateway.exited() === undefined) {
        const shape = bodies[sequence % bodies.length];
        sequence += 1;
        try {
          const { status, json } = await request('/v1/invoke', token, shape.body(sequence));
          const code = json?.error?.code;
          if (status === 200 && json?.status === 'accepted') {
            count('invoke 200 accepted');
            active.push(json.job.jobId);
            if (shape.expect !== 200) fail(`${shape.name}: accepted, expected 413`);
          } else if (status === 413 && code === 'payload_too_large') {
            count(`invoke 413 ${json.error.details.field}`);
            if (shape.expect !== 413) fail(`${shape.name}: 413, expected accepted`);
          } else if (status === 429 && code === 'quota_exceeded') {
            count(`invoke 429 ${json.error.details.quota}`);
            // At the quota: cancel the oldest half, then resubmit.
            const cancels = active.splice(0, Math.max(1, Math.floor(active.length / 2)));
            for (const jobId of cancels) {
              const cancelled = await request(`/v1/jobs/${jobId}/cancel`, token);
              count(`cancel ${cancelled.status}`);
              const timedOut = cancelled.status === 503 && store === 'redis';
              if (cancelled.status !== 200 && cancelled.status !== 409 && !timedOut)
                fail(`cancel answered ${cancelled.status} ${JSON.stringify(cancelled.json)}`);
            }
          } else if (status === 503 && code === 'unavailable' && store === 'redis') {
            count('invoke 503 unavailable (Redis command timeout)');
          } else {
            count(`invoke ${status} ${code ?? json?.status}`);
            fail(`invoke answered ${status} ${JSON.stringify(json)?.slice(0, 200)}`);
          }
          if (active.length > QUOTA) fail(`more than ${QUOTA} accepted jobs at once`);
        } catch (error) {
          if (gateway.exited() !== undefined) break;
          count('error');
          fail(`request failed: ${error.message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: config.lanes }, lane));
  };
  const started = Date.now();
  await Promise.all(tokens.map(principal));
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const exited = gateway.exited();
  let rss = Number.NaN;
  if (exited === undefined) {
    const memory = memoryOf(gateway.pid);
    rss = memory.rss;
    peakRss = Math.max(peakRss, memory.peak);
    if (config.heapProbe) {
      const heap = await gateway.liveHeap();
      console.log(
        `  live heap after GC ${fmt(heap.used, 1)} MiB (total ${fmt(heap.total, 1)}, external ${fmt(heap.external, 1)})`,
      );
    }
  } else {
    fail(`the gateway process died (${exited}):\n${gateway.output().slice(-2_000)}`);
  }
  if (process.env.HELD_OUTPUT === '1') console.log(gateway.output().slice(-3_000));
  await gateway.stop();
  await redis?.stop();
  if (peakRss > config.budgetMiB)
    fail(`peak RSS ${fmt(peakRss, 1)} MiB over ${config.budgetMiB} MiB`);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(`\n${store} stores: ${fmt(total)} requests in ${fmt(seconds, 1)} s`);
  for (const [label, n] of Object.entries(counts).sort()) console.log(`  ${label}: ${fmt(n)}`);
  console.log(
    `  RSS at the end ${fmt(rss, 1)} MiB, peak ${fmt(peakRss, 1)} MiB (budget ${config.budgetMiB} MiB)`,
  );
  for (const [why, times] of failures)
    console.error(`  ✗ ${why}${times > 1 ? ` (×${times})` : ''}`);
  return failures.size === 0;
}

console.log(
  `Held memory: the demo (--max-old-space-size=256 --max-semi-space-size=16), 2 principals × ${config.lanes} connections, ${config.seconds} s per store`,
);
for (const shape of SHAPES)
  console.log(
    `  context: ${shape.name}, ${fmt(shape.bytes)} bytes, ${fmt(shape.nodes)} nodes → ${shape.expect}`,
  );
let ok = true;
for (const store of config.stores) ok = (await run(store)) && ok;
process.exit(ok ? 0 : 1);
