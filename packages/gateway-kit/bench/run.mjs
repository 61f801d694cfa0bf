// `pnpm bench`: throughput of the same sync invoke on (a) bare node:http, (b) Hono on
// @hono/node-server, (c) @svc/gateway-kit/node and (d) the same gateway mounted in Fastify with
// @svc/gateway-kit/fastify, plus cold import time and per-invoke validation cost. Method and recorded figures: docs/benchmarks.md ("Gateway throughput").
//
// Env: BENCH_SECONDS (5) per measured run, BENCH_ROUNDS (3), BENCH_WARMUP (5 s per server),
// BENCH_CONNECTIONS (64), BENCH_IMPORT_SAMPLES (15), BENCH_MICRO_MS (1000),
// BENCH_ENFORCE=1 (exit 1 when a target is missed). `--smoke` shortens everything (~1 s runs).
import { execFileSync, fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BODY, HANDLER_MODE, REQUEST_HEADERS } from './fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const smoke = process.argv.includes('--smoke');
const env = (name, full, short) => Number(process.env[name] ?? (smoke ? short : full));
const config = {
  seconds: env('BENCH_SECONDS', 5, 1),
  rounds: env('BENCH_ROUNDS', 3, 1),
  warmup: env('BENCH_WARMUP', 5, 1),
  connections: env('BENCH_CONNECTIONS', 64, 64),
  importSamples: env('BENCH_IMPORT_SAMPLES', 15, 5),
  microMs: env('BENCH_MICRO_MS', 1000, 200),
};
// Issue 10's acceptance: c/a throughput, c/a p99 (at most), c/b throughput, fresh idempotencyKey
// over plain in-process (at most), cold import (at most); issue 21's: d/c throughput.
const TARGETS = { ca: 0.9, p99: 1.5, cb: 1.5, dc: 0.9, idempotent: 2, importMs: 30 };
const SERVERS = [
  { key: 'a', label: 'a  bare node:http', file: 'servers/bare.mjs' },
  { key: 'b', label: 'b  hono + node-server', file: 'servers/hono.mjs' },
  { key: 'c', label: 'c  gateway-kit/node', file: 'servers/gateway.mjs' },
  { key: 'd', label: 'd  gateway-kit/fastify', file: 'servers/fastify.mjs' },
];

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
    const child = fork(join(here, server.file), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${server.label} exited early (${code})`)));
    child.once('message', ({ port, prefix }) => {
      child.removeAllListeners('exit');
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

/** All must do the same work: same 200 bytes, and the same refusals (so none skips auth or validation). */
async function verify(running) {
  const answers = await Promise.all(running.map((s) => post(s.url, BODY)));
  for (const [i, answer] of answers.entries()) {
    const who = running[i].label.trim();
    if (answer.status !== 200) fail(`${who} answered ${answer.status}: ${answer.body}`);
    if (answer.body !== answers[0].body) {
      fail(`${who} answered different bytes:\n  ${answer.body}\nvs\n  ${answers[0].body}`);
    }
    if (answer.type !== 'application/json' || answer.cache !== 'no-store') {
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

/**
 * CPU time (user + system, µs) a server process has used so far, from /proc (Linux; `undefined`
 * elsewhere). Per answered request it moves far less than req/s when other work shares the cores.
 */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
// USER_HZ: 100 on every Linux build Node supports.
const CLOCK_TICKS = 100;

async function load(server, seconds, expectBody) {
  const cpuBefore = cpuMicros(server.child.pid);
  const result = await autocannon({
    url: server.url,
    method: 'POST',
    headers: REQUEST_HEADERS,
    body: BODY,
    connections: config.connections,
    pipelining: 1,
    duration: seconds,
    // Every answer is compared with the verified bytes; a mismatch fails the run.
    expectBody,
  });
  const bad = result.non2xx + result.errors + result.timeouts + result.mismatches;
  if (bad > 0 || result.requests.total === 0) {
    fail(
      `${server.label.trim()}: non2xx=${result.non2xx} errors=${result.errors} ` +
        `timeouts=${result.timeouts} mismatches=${result.mismatches} total=${result.requests.total}`,
    );
  }
  const cpuAfter = cpuMicros(server.child.pid);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: cpuBefore === undefined ? undefined : (cpuAfter - cpuBefore) / result.requests.total,
  };
}

// --- report --------------------------------------------------------------------------------

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok) => (ok ? 'met' : 'NOT MET');

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
      `${config.rounds} rounds × ${config.seconds} s, order a→b→c→d each round, ` +
      `${HANDLER_MODE} handlers (BENCH_HANDLER)\n`,
  );

  // Cold import first, while nothing else runs on the machine.
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

  const running = await Promise.all(SERVERS.map(start));
  const stop = () => {
    for (const s of running) s.child.kill();
  };
  process.once('exit', stop);
  try {
    const expectBody = await verify(running);
    for (const server of running) await load(server, config.warmup, expectBody);
    const rounds = [];
    for (let r = 0; r < config.rounds; r++) {
      const round = {};
      for (const server of running)
        round[server.key] = await load(server, config.seconds, expectBody);
      rounds.push(round);
      console.log(
        `round ${r + 1}: ` +
          running.map((s) => `${s.key} ${fmt(round[s.key].rps)} req/s`).join(', '),
      );
    }
    report(running, rounds, importMs, micro);
  } finally {
    stop();
  }
}

function report(running, rounds, importMs, micro) {
  const pad = (text, width) => String(text).padStart(width);
  const withCpu = rounds.every((round) => running.every((s) => round[s.key].cpuUs !== undefined));
  console.log(
    `\n${'server'.padEnd(24)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}` +
      (withCpu ? pad('CPU µs/req', 12) : ''),
  );
  for (const server of running) {
    const runs = rounds.map((round) => round[server.key]);
    console.log(
      server.label.padEnd(24) +
        pad(fmt(median(runs.map((x) => x.rps))), 10) +
        pad(fmt(median(runs.map((x) => x.p50)), 1), 9) +
        pad(fmt(median(runs.map((x) => x.p99)), 1), 9) +
        (withCpu ? pad(fmt(median(runs.map((x) => x.cpuUs)), 1), 12) : ''),
    );
  }
  // Ratio per round, then the median: neighbouring runs share the machine's state.
  const ca = median(rounds.map((round) => round.c.rps / round.a.rps));
  const p99 = median(rounds.map((round) => round.c.p99 / round.a.p99));
  const cb = median(rounds.map((round) => round.c.rps / round.b.rps));
  const dcRatios = rounds.map((round) => round.d.rps / round.c.rps);
  const dc = median(dcRatios);
  const idempotent = micro.gatewayFetchIdempotent / micro.gatewayFetch;
  const importOk = importMs.package <= TARGETS.importMs;
  const checks = [
    ['c/a throughput', ca, ca >= TARGETS.ca, `≥ ${TARGETS.ca}`],
    ['c/a p99', p99, p99 <= TARGETS.p99, `≤ ${TARGETS.p99}`],
    ['c/b throughput', cb, cb >= TARGETS.cb, `≥ ${TARGETS.cb}`],
    ['d/c throughput', dc, dc >= TARGETS.dc, `≥ ${TARGETS.dc}`],
    ['idempotent/plain', idempotent, idempotent <= TARGETS.idempotent, `≤ ${TARGETS.idempotent}`],
  ];
  console.log('');
  for (const [what, value, ok, target] of checks) {
    console.log(`${what.padEnd(17)} ${fmt(value, 3)}  (target ${target}: ${verdict(ok)})`);
  }
  // The spread of the per-round ratio is the run's noise: a shared machine widens it.
  console.log(
    `d/c per round: ${dcRatios.map((ratio) => fmt(ratio, 3)).join(', ')} ` +
      `(spread ${fmt(Math.min(...dcRatios), 3)}–${fmt(Math.max(...dcRatios), 3)})`,
  );
  if (withCpu) {
    // What req/s would be if each server had a core to itself: the inverse CPU cost per request.
    const cpuRatios = rounds.map((round) => round.c.cpuUs / round.d.cpuUs);
    console.log(
      `d/c by server CPU per request (c µs / d µs): median ${fmt(median(cpuRatios), 3)}, ` +
        `per round ${cpuRatios.map((ratio) => fmt(ratio, 3)).join(', ')}`,
    );
  }
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
