// `pnpm bench`: throughput of the same sync invoke on (a) bare node:http, (b) Hono on
// @hono/node-server with its defaults and with a node:crypto hashFunction, (c)
// @svc/gateway-kit/node, (d) Fastify with a route JSON Schema and with valibot in a preHandler,
// (e) the gateway mounted in Fastify with @svc/gateway-kit/fastify, plus cold import time and per-invoke validation cost;
// on request (BENCH_SERVERS=a,cf,t,s) also (cf) the gateway's Web entry `gateway.fetch` on
// @hono/node-server, (t) a hand-tuned node:http server doing bare's work and (s) the same server
// also doing what the kit must do beyond bare (servers/strict.mjs). Each server runs in its own process,
// pinned to core 0 where `taskset` exists; the load generator (load.mjs: closed loop, latency of
// every request in µs) runs pinned to core 1. The order of the servers rotates every round.
// Server CPU per request is read from /proc around each run. Method and recorded figures:
// docs/benchmarks.md ("Gateway throughput").
//
// Env: BENCH_SECONDS (5) per measured run, BENCH_ROUNDS (6), BENCH_WARMUP (3 s per server),
// BENCH_CONNECTIONS (64), BENCH_IMPORT_SAMPLES (15), BENCH_MICRO_MS (1000),
// BENCH_ENFORCE=1 (exit 1 when a target is missed), BENCH_SERVERS (a comma-separated subset of
// the server keys, e.g. `a,c,dv`: only those run, cold import and the in-process figures are
// skipped, and only the targets whose servers ran are judged; for quick development runs),
// BENCH_HEAP=1 (adds each server's JavaScript heap bytes per request, see heap-meter.mjs).
// `--smoke` shortens everything (~1 s runs) and runs the servers named only on request too, so
// that every server's answers are checked.
import { execFileSync, fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BODY, HANDLER_MODE, REQUEST_HEADERS } from './fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const smoke = process.argv.includes('--smoke');
const env = (name, full, short) => Number(process.env[name] ?? (smoke ? short : full));
const config = {
  seconds: env('BENCH_SECONDS', 5, 1),
  rounds: env('BENCH_ROUNDS', 6, 1),
  warmup: env('BENCH_WARMUP', 3, 1),
  connections: env('BENCH_CONNECTIONS', 64, 64),
  importSamples: env('BENCH_IMPORT_SAMPLES', 15, 5),
  microMs: env('BENCH_MICRO_MS', 1000, 200),
};
// Targets: c/a throughput and c/(faster Fastify) throughput (at least), c/a p99 (at most), the
// Fastify mount against toNodeHandler on node:http (at least), fresh idempotencyKey over plain in-process
// (at most), cold import (at most).
const TARGETS = { ca: 1.05, cd: 1.05, p99: 1.1, ec: 0.9, idempotent: 2, importMs: 30 };
const ALL_SERVERS = [
  { key: 'a', label: 'a  bare node:http + valibot', file: 'servers/bare.mjs' },
  { key: 'b0', label: 'b0 Hono, defaults', file: 'servers/hono.mjs', args: ['defaults'] },
  { key: 'b', label: 'b  Hono, hashFunction', file: 'servers/hono.mjs', args: ['hash'] },
  { key: 'c', label: 'c  gateway-kit/node', file: 'servers/gateway.mjs' },
  { key: 'd', label: 'd  Fastify, JSON Schema', file: 'servers/fastify.mjs', args: ['schema'] },
  { key: 'dv', label: 'dv Fastify, valibot', file: 'servers/fastify.mjs', args: ['valibot'] },
  { key: 'e', label: 'e  gateway-kit/fastify', file: 'servers/gateway-fastify.mjs' },
  {
    key: 'cn',
    label: 'cn gateway-kit toNodeHandler',
    file: 'servers/gateway-handler.mjs',
  },
  // Only when named in BENCH_SERVERS: no target rests on it.
  {
    key: 'cf',
    label: 'cf gateway.fetch, node-server',
    file: 'servers/gateway-fetch.mjs',
    optional: true,
  },
  { key: 't', label: 't  hand-tuned node:http', file: 'servers/tuned.mjs', optional: true },
  {
    key: 's',
    label: "s  hand-tuned, the kit's rules",
    file: 'servers/strict.mjs',
    optional: true,
  },
];
const heapMeter = process.env.BENCH_HEAP === '1';
const only = process.env.BENCH_SERVERS?.split(',').map((key) => key.trim());
const unknownKey = only?.find((key) => !ALL_SERVERS.some((server) => server.key === key));
if (unknownKey !== undefined) throw new Error(`BENCH_SERVERS: no server "${unknownKey}"`);
// `a` is every ratio's baseline: it always runs.
const SERVERS = only
  ? ALL_SERVERS.filter((server) => server.key === 'a' || only.includes(server.key))
  : ALL_SERVERS.filter((server) => smoke || !server.optional);

// --- pinning and CPU accounting -------------------------------------------------------------

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return cpus().length >= 2;
  } catch {
    return false;
  }
})();
/** Pins every thread of `pid` to `core` (no-op without taskset). */
function pin(pid, core) {
  if (hasTaskset)
    execFileSync('taskset', ['-a', '-pc', String(core), String(pid)], { stdio: 'ignore' });
}
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();
/** User + system CPU time of a process so far, in µs (/proc/PID/stat fields 14 and 15). */
function cpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1e6;
  } catch {
    return Number.NaN;
  }
}

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fail = (message) => {
  console.error(`\nBENCH FAILED: ${message}`);
  process.exitCode = 1;
  throw new Error(message);
};

async function checkDist() {
  const dist = join(here, '../dist');
  const built = () =>
    ['index.js', 'node.js', 'fastify.js'].every((file) => existsSync(join(dist, file)));
  // A build running in the same tree empties dist/ for a few seconds (tsup `clean`): wait it out.
  for (let i = 0; i < 30 && !built(); i++) await new Promise((done) => setTimeout(done, 1000));
  if (!built()) fail('dist/ is missing: run `pnpm build` first.');
  const newest = (dir) =>
    readdirSync(dir, { recursive: true })
      .map((file) => statSync(join(dir, file)).mtimeMs)
      .reduce((a, b) => Math.max(a, b), 0);
  if (newest(join(here, '../src')) > statSync(join(dist, 'node.js')).mtimeMs) {
    console.warn('warning: src/ is newer than dist/ — the gateway measured may be stale.');
  }
}

// --- cold import -------------------------------------------------------------------------

function coldImport(node, specifiers) {
  const samples = [];
  // No compile cache: every sample must parse and compile from scratch, as a fresh deploy does.
  const childEnv = { ...process.env };
  delete childEnv.NODE_COMPILE_CACHE;
  for (let i = 0; i < config.importSamples; i++) {
    const out = execFileSync(node, [join(here, 'cold-import.mjs'), ...specifiers], {
      env: childEnv,
      encoding: 'utf8',
    });
    samples.push(Number(out));
  }
  return median(samples);
}

// --- servers -------------------------------------------------------------------------------

function start(server) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, server.file), server.args ?? [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: heapMeter ? ['--import', join(here, 'heap-meter.mjs')] : [],
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${server.label} exited early (${code})`)));
    child.once('message', ({ port, prefix = '' }) => {
      child.removeAllListeners('exit');
      pin(child.pid, 0);
      resolve({ ...server, child, url: `http://127.0.0.1:${port}${prefix}/v1/invoke` });
    });
  });
}

async function post(url, body, headers = REQUEST_HEADERS) {
  const response = await fetch(url, { method: 'POST', headers, body });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    cache: response.headers.get('cache-control'),
    body: await response.text(),
  };
}

/** Every server must do the same work: same 200 bytes, and the same refusals (so none skips auth or validation). */
async function verify(running) {
  const answers = await Promise.all(running.map((s) => post(s.url, BODY)));
  for (const [i, answer] of answers.entries()) {
    const who = running[i].label.trim();
    if (answer.status !== 200) fail(`${who} answered ${answer.status}: ${answer.body}`);
    if (answer.body !== answers[0].body) {
      fail(`${who} answered different bytes:\n  ${answer.body}\nvs\n  ${answers[0].body}`);
    }
    // A `; charset=utf-8` parameter (Fastify adds one) names the same media type.
    if (answer.type?.split(';')[0] !== 'application/json' || answer.cache !== 'no-store') {
      fail(`${who} answered headers content-type=${answer.type} cache-control=${answer.cache}`);
    }
  }
  const body = JSON.parse(BODY);
  const refusals = [
    ['bad token', 401, BODY, { ...REQUEST_HEADERS, authorization: 'Bearer wrong' }],
    ['unknown top-level key', 422, JSON.stringify({ ...body, extra: 1 })],
    [
      'invalid input',
      422,
      JSON.stringify({ ...body, action: { ...body.action, input: { accountId: 42, fields: [] } } }),
    ],
  ];
  for (const [what, status, payload, headers] of refusals) {
    for (const server of running) {
      const answer = await post(server.url, payload, headers);
      if (answer.status !== status) {
        fail(`${server.label.trim()}: ${what} answered ${answer.status}, expected ${status}`);
      }
    }
  }
  return answers[0].body;
}

/** The load generator: one child process, pinned to core 1, reused for every run. */
function startLoadGenerator() {
  const child = fork(join(here, 'load.mjs'), [], {
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

/** The server's heap bytes per request (allocated, promoted) over a run (BENCH_HEAP=1, see heap-meter.mjs). */
function heapMeterStop(child, requests) {
  return new Promise((resolve) => {
    const onMessage = (message) => {
      if (message?.heapBytesPerRequest === undefined) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send({ heapMeterStop: requests });
  });
}

async function load(generator, server, seconds, expectBody) {
  if (heapMeter) server.child.send('heap-meter-start');
  const cpuBefore = cpuMicros(server.child.pid);
  const result = await generator.run({
    url: server.url,
    seconds,
    connections: config.connections,
    body: BODY,
    headers: REQUEST_HEADERS,
    // Every answer is compared with the verified bytes; a mismatch fails the run.
    expectBody,
  });
  const cpuUs = (cpuMicros(server.child.pid) - cpuBefore) / result.requests;
  const heap = heapMeter ? await heapMeterStop(server.child, result.requests) : undefined;
  if (result.bad > 0 || result.requests === 0) {
    fail(`${server.label.trim()}: ${result.bad} bad answers, ${result.requests} good`);
  }
  return {
    rps: result.rps,
    p50: result.latencyUs.p50,
    p99: result.latencyUs.p99,
    cpuUs,
    heapBytes: heap?.heapBytesPerRequest ?? Number.NaN,
    promotedBytes: heap?.promotedBytesPerRequest ?? Number.NaN,
  };
}

// --- report --------------------------------------------------------------------------------

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok) => (ok ? 'met' : 'NOT MET');

/** Cold import times and the in-process per-invoke costs. */
function measureInProcess() {
  const both = ['../dist/index.js', '../dist/node.js'];
  const importMs = {
    // The package's own cost: node:http is loaded first, as it is in any Node server.
    package: coldImport(process.execPath, ['--after=node:http', ...both]),
    withHttp: coldImport(process.execPath, both),
    index: coldImport(process.execPath, ['../dist/index.js']),
    // Builtins are not preloaded: node:http alone is the floor any Node HTTP server pays.
    http: coldImport(process.execPath, ['node:http']),
    valibot: coldImport(process.execPath, ['valibot']),
  };
  if (process.env.NODE22_BIN && existsSync(process.env.NODE22_BIN)) {
    importMs.node22 = coldImport(process.env.NODE22_BIN, ['--after=node:http', ...both]);
  }
  const micro = JSON.parse(
    execFileSync(process.execPath, [join(here, 'validation.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, BENCH_MICRO_MS: String(config.microMs) },
    }),
  );

  return { importMs, micro };
}

async function main() {
  await checkDist();
  const cpu = cpus();
  console.log(
    `gateway throughput — Node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim()}), ` +
      `${fmt(totalmem() / 2 ** 30, 1)} GiB${smoke ? ' — SMOKE (figures not meaningful)' : ''}`,
  );
  const load1 = loadavg()[0];
  // Colleagues' builds and tests share these 2 cores; a busy machine skews every figure.
  if (load1 > 1) console.warn(`warning: load average ${fmt(load1, 2)} — figures will be noisy.`);
  console.log(
    `load average ${fmt(load1, 2)}, body ${Buffer.byteLength(BODY)} B, ${config.connections} connections, warm-up ${config.warmup} s, ` +
      `${config.rounds} rounds × ${config.seconds} s, order rotated each round, ` +
      `${HANDLER_MODE} handlers (BENCH_HANDLER), ` +
      (hasTaskset
        ? 'servers pinned to core 0, load generator to core 1\n'
        : 'no pinning (taskset missing)\n'),
  );

  // Cold import first, while nothing else runs on the machine (skipped for a subset of servers).
  const { importMs, micro } = only ? {} : measureInProcess();
  const running = await Promise.all(SERVERS.map(start));
  const generator = startLoadGenerator();
  const stop = () => {
    for (const s of running) s.child.kill();
    generator.child.kill();
  };
  process.once('exit', stop);
  try {
    const expectBody = await verify(running);
    for (const server of running) await load(generator, server, config.warmup, expectBody);
    const rounds = [];
    for (let r = 0; r < config.rounds; r++) {
      const round = {};
      // Rotated order: no server always runs first, or always right after the same neighbour.
      const order = running.map((_, i) => running[(i + r) % running.length]);
      for (const server of order)
        round[server.key] = await load(generator, server, config.seconds, expectBody);
      rounds.push(round);
      console.log(
        `round ${r + 1}: ${order.map((s) => `${s.key} ${fmt(round[s.key].rps)}`).join(', ')}`,
      );
    }
    report(running, rounds, importMs, micro);
  } finally {
    stop();
  }
}

function report(running, rounds, importMs, micro) {
  const pad = (text, width) => String(text).padStart(width);
  console.log(
    `\n${'server (median of rounds)'.padEnd(30)}${pad('req/s', 9)}${pad('× a', 7)}` +
      `${pad('p50 µs', 9)}${pad('p99 µs', 9)}${pad('CPU µs/req', 12)}` +
      (heapMeter ? pad('heap B/req', 12) + pad('promoted B/req', 16) : ''),
  );
  // Ratio per round, then the median: neighbouring runs share the machine's state.
  const ratio = (x, y, field = 'rps') =>
    median(rounds.map((round) => round[x][field] / round[y][field]));
  for (const server of running) {
    const runs = rounds.map((round) => round[server.key]);
    console.log(
      server.label.padEnd(30) +
        pad(fmt(median(runs.map((x) => x.rps))), 9) +
        pad(fmt(ratio(server.key, 'a'), 2), 7) +
        pad(fmt(median(runs.map((x) => x.p50))), 9) +
        pad(fmt(median(runs.map((x) => x.p99))), 9) +
        pad(fmt(median(runs.map((x) => x.cpuUs)), 1), 12) +
        (heapMeter
          ? pad(fmt(median(runs.map((x) => x.heapBytes))), 12) +
            pad(fmt(median(runs.map((x) => x.promotedBytes))), 16)
          : ''),
    );
  }
  const ran = (...keys) => keys.every((key) => key in rounds[0]);
  // The faster Fastify configuration of this run is the one to beat.
  const fastifies = ['d', 'dv'].filter((key) => ran(key));
  const rps = (key) => median(rounds.map((round) => round[key].rps));
  const fastify = fastifies.sort((x, y) => rps(y) - rps(x))[0];
  const checks = [];
  if (ran('c')) {
    const ca = ratio('c', 'a');
    const p99 = ratio('c', 'a', 'p99');
    checks.push(['c/a throughput', ca, ca >= TARGETS.ca, `≥ ${TARGETS.ca}`]);
    if (fastify) {
      const cd = ratio('c', fastify);
      checks.push([
        `c/${fastify} throughput`,
        cd,
        cd >= TARGETS.cd,
        `≥ ${TARGETS.cd}, the faster Fastify`,
      ]);
    }
    checks.push(['c/a p99', p99, p99 <= TARGETS.p99, `≤ ${TARGETS.p99}`]);
  }
  // The Fastify mount against the adapter code it shares, on node:http as Fastify is (issue 21).
  if (ran('cn', 'e')) {
    const ecn = ratio('e', 'cn');
    checks.push([
      'e/cn throughput',
      ecn,
      ecn >= TARGETS.ec,
      `≥ ${TARGETS.ec}, the Fastify mount against toNodeHandler`,
    ]);
  }
  if (micro) {
    const idempotent = micro.gatewayFetchIdempotent / micro.gatewayFetch;
    checks.push([
      'idempotent/plain',
      idempotent,
      idempotent <= TARGETS.idempotent,
      `≤ ${TARGETS.idempotent}`,
    ]);
  }
  console.log('');
  for (const [what, value, ok, target] of checks) {
    console.log(`${what.padEnd(17)} ${fmt(value, 3)}  (target ${target}: ${verdict(ok)})`);
  }
  if (ran('c', 'b'))
    console.log(
      `c/b  throughput  ${fmt(ratio('c', 'b'), 3)}  (Hono with a node:crypto hashFunction)`,
    );
  if (ran('c', 'b0'))
    console.log(
      `c/b0 throughput  ${fmt(ratio('c', 'b0'), 3)}  (Hono defaults: bearerAuth hashes both tokens with Web Crypto per request)`,
    );
  if (!importMs || !micro) {
    console.log('(BENCH_SERVERS set: cold import and in-process figures skipped)');
    if (checks.some(([, , ok]) => !ok) && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
    return;
  }
  const importOk = importMs.package <= TARGETS.importMs;
  console.log(
    `cold import, median of ${config.importSamples} fresh processes: index + node ` +
      `${fmt(importMs.package, 1)} ms on top of node:http (target ≤ ${TARGETS.importMs} ms: ${verdict(importOk)}); ` +
      `index + node including node:http ${fmt(importMs.withHttp, 1)} ms; ` +
      `index alone ${fmt(importMs.index, 1)} ms; node:http alone ${fmt(importMs.http, 1)} ms; ` +
      `valibot alone ${fmt(importMs.valibot, 1)} ms` +
      (importMs.node22 === undefined
        ? ''
        : `; index + node on Node 22 ${fmt(importMs.node22, 1)} ms`),
  );
  console.log(
    `per invoke, in-process: valibot request+input ${fmt(micro.valibot)} ns/op, ` +
      `JSON.parse + valibot ${fmt(micro.parseAndValibot)} ns/op, ` +
      `gateway.fetch (whole path) ${fmt(micro.gatewayFetch)} ns/op, ` +
      `gateway.fetch with a fresh idempotencyKey ${fmt(micro.gatewayFetchIdempotent)} ns/op`,
  );
  const missed = checks.some(([, , ok]) => !ok) || !importOk;
  if (missed && process.env.BENCH_ENFORCE === '1') process.exitCode = 1;
}

await main();
