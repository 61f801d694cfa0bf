// `pnpm bench` (examples/node): soak of the demo gateway with its defaults. Rounds of mixed
// traffic (traffic.mjs: valid sync, job, approval and idempotent invokes, invalid, malformed,
// unauthenticated, oversized and object-heavy bodies) from several callers at 64 connections,
// printing per round the requests, status histogram, 5xx count, p50/p99 latency and the server's
// RSS, then its RSS after an idle pause. Method and recorded figures: docs/benchmarks.md ("Soak").
//
// Fails (exit code 1) on any 5xx, a timed-out request, an answer outside a request's expected
// ones, or an RSS (current or peak) over the budget. Loopback only, bounded in time.
//
// Env: SOAK_ROUNDS (3), SOAK_SECONDS (20 per round), SOAK_IDLE_SECONDS (10), SOAK_CONNECTIONS
// (64), SOAK_RSS_BUDGET_MIB (512), SOAK_NODE_FLAGS (flags of the gateway's node; default the
// ones `pnpm start` uses, `--max-old-space-size=256 --max-semi-space-size=16`; e.g.
// `--max-old-space-size=384`; none by default), SOAK_HEAP=1 (also print the gateway's heap after
// a full GC: a diagnostic, the forced collections change the RSS measured next).
// SOAK_MAX_REQUESTS (per round; none, smoke 2 500). `--smoke`: 3 rounds of at most 2 s and
// 2 500 requests, 1 s idle (CI, ~10 s in all).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { memoryOf, startGateway } from './gateway-process.mjs';
import { answerLabel, bodyBytes, rotation, trafficClasses } from './traffic.mjs';

const smoke = process.argv.includes('--smoke');
const setting = (name, full, short) => {
  const value = Number(process.env[name] ?? (smoke ? short : full));
  if (Number.isNaN(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const config = {
  rounds: setting('SOAK_ROUNDS', 3, 3),
  seconds: setting('SOAK_SECONDS', 20, 2),
  idleSeconds: setting('SOAK_IDLE_SECONDS', 10, 1),
  connections: setting('SOAK_CONNECTIONS', 64, 64),
  budgetMiB: setting('SOAK_RSS_BUDGET_MIB', 512, 512),
  // Most requests per round (kept connections), so that a smoke run's memory does not depend on
  // how fast the machine is; the full run is bounded by time only.
  maxRequests: setting('SOAK_MAX_REQUESTS', Number.POSITIVE_INFINITY, 2_500),
  heapProbe: process.env.SOAK_HEAP === '1',
  // Node flags of the gateway, e.g. `--max-old-space-size=256`; none by default.
  // The demo as `pnpm start` runs it (package.json): its heap sized to its live data.
  nodeFlags: (process.env.SOAK_NODE_FLAGS ?? '--max-old-space-size=256 --max-semi-space-size=16')
    .split(' ')
    .filter(Boolean),
};
const REQUEST_TIMEOUT_S = 10;
const CALLERS = 4;

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mib = (n) => `${fmt(n, 1)} MiB`;
const histogram = (counts) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status} ×${fmt(count)}`)
    .join(', ');

const failures = [];
const fail = (why) => {
  failures.push(why);
  console.error(`  ✗ ${why}`);
};

/**
 * Sends one request of `traffic` as caller `principal`: its answer's label, and whether the
 * gateway closed the connection after it (`Connection: close`).
 */
async function once(url, traffic, token, principal) {
  const { method, path, body } = traffic.make(principal);
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${traffic.token ?? token}`,
      'content-type': 'application/json',
    },
    body,
  });
  const label = answerLabel(response.status, await response.text());
  return { label, closes: response.headers.get('connection') === 'close' };
}

/**
 * Each kind of request, sent alone, gets its documented answer: the mix does what it claims.
 * Returns the kinds after which the gateway closes the connection.
 */
async function checkTraffic(url, classes, tokens) {
  const closing = new Set();
  for (const traffic of classes) {
    const { label, closes } = await once(url, traffic, tokens[0], 0);
    if (label !== traffic.expect[0]) {
      fail(`${traffic.name}: a lone request answered ${label}, expected ${traffic.expect[0]}`);
    }
    if (closes) closing.add(traffic);
  }
  // Every caller's replayed key exists before its fresh keys can fill the caller's quota.
  const replay = classes.find((traffic) => traffic.name === 'idempotent replay');
  for (let p = 1; p < tokens.length; p++) await once(url, replay, tokens[p], p);
  return closing;
}

/**
 * One autocannon instance walking `classes` on `connections` connections, each request from the
 * next caller in turn; `tally(traffic, label)` counts every answer.
 */
function load(url, classes, connections, maxRequests, tokens, tally) {
  let turn = 0;
  const requests = rotation(classes).map((traffic) => ({
    setupRequest: (request) => {
      const principal = turn++ % tokens.length;
      const { method, path, body } = traffic.make(principal);
      request.method = method;
      request.path = path;
      request.body = body;
      request.headers = {
        ...request.headers,
        authorization: `Bearer ${traffic.token ?? tokens[principal]}`,
      };
      return request;
    },
    onResponse: (status, body) => tally(traffic, answerLabel(status, body)),
  }));
  return autocannon({
    url,
    connections,
    pipelining: 1,
    duration: config.seconds,
    ...(Number.isFinite(maxRequests) ? { maxOverallRequests: maxRequests } : {}),
    timeout: REQUEST_TIMEOUT_S,
    headers: { 'content-type': 'application/json' },
    requests,
  });
}

/** Connections given to the kinds after which the gateway closes the connection: an eighth. */
const closingConnections = () => Math.max(1, Math.round(config.connections / 8));

/**
 * A round: the kinds of request that keep their connection walk the rotation on most
 * connections; at the same time each kind after which the gateway closes the connection (413,
 * and 401 answered before the body was read) gets connections of its own, an eighth in all.
 * autocannon pairs answers with requests by their order on a connection, which a connection
 * closed by the server upsets (the answer after a reconnection is paired with the request lost
 * with the old connection); alone on its connections, a kind's answers are its own.
 */
async function round(url, classes, closing, tokens) {
  const tallies = new Map();
  const count = (traffic, label) => {
    const tally = tallies.get(traffic) ?? {};
    tally[label] = (tally[label] ?? 0) + 1;
    tallies.set(traffic, tally);
  };
  const kinds = [...closing];
  const loads = [
    load(
      url,
      classes.filter((traffic) => !closing.has(traffic)),
      config.connections - (kinds.length > 0 ? closingConnections() : 0),
      config.maxRequests,
      tokens,
      count,
    ),
    ...kinds.map((traffic, i) => {
      // The eighth shared out, each kind at least one connection.
      const share = Math.max(1, Math.floor((closingConnections() + i) / kinds.length));
      // About their share of a full run: one in a hundred requests each.
      const cap = Math.max(share, Math.round(config.maxRequests / 100));
      return load(url, [traffic], share, cap, tokens, count);
    }),
  ];
  const [kept, ...closed] = await Promise.all(loads);
  const statuses = {};
  for (const result of [kept, ...closed]) {
    for (const [status, { count: n }] of Object.entries(result.statusCodeStats)) {
      statuses[status] = (statuses[status] ?? 0) + n;
    }
  }
  return { kept, closed, statuses, tallies };
}

async function main() {
  if (!existsSync('/proc/self/status'))
    throw new Error('The soak reads RSS from /proc: Linux only.');
  const cpu = cpus();
  console.log(
    `soak of the demo gateway (examples/node, defaults, in-memory stores) — Node ${process.version}, ` +
      `${cpu.length} cores (${cpu[0]?.model.trim()}), ${fmt(totalmem() / 2 ** 30, 1)} GiB` +
      `${smoke ? ' — SMOKE (figures not meaningful)' : ''}`,
  );
  // Random tokens for this run only: one per caller, never printed.
  const tokens = Array.from({ length: CALLERS }, () => randomBytes(24).toString('base64url'));
  const gateway = await startGateway(
    {
      GATEWAY_TOKEN: tokens[0],
      EXTRA_GATEWAY_TOKENS: tokens.slice(1).join(','),
      OPERATOR_TOKEN: randomBytes(24).toString('base64url'),
    },
    { heapProbe: config.heapProbe, nodeFlags: config.nodeFlags },
  );
  /** With SOAK_HEAP=1, what the gateway still holds after a full GC (changes later RSS figures). */
  const printLiveHeap = async () => {
    if (!config.heapProbe) return;
    const heap = await gateway.liveHeap();
    console.log(
      `  heap after a full GC: used ${mib(heap.used)}, total ${mib(heap.total)}, external ${mib(heap.external)}`,
    );
  };
  const watchdog = setTimeout(
    () => {
      console.error('\nSOAK FAILED: overran its time bound');
      void gateway.stop().then(() => process.exit(1));
    },
    (config.rounds * (config.seconds + REQUEST_TIMEOUT_S) + config.idleSeconds + 60) * 1000,
  );
  try {
    if (tokens.some((token) => gateway.output().includes(token))) {
      fail('the gateway printed a token on startup');
    }
    const classes = trafficClasses(tokens.length);
    const closing = await checkTraffic(gateway.url, classes, tokens);
    const start = memoryOf(gateway.pid);
    console.log(
      `load average ${fmt(loadavg()[0], 2)}; ${CALLERS} callers (default, caller-1…caller-${CALLERS - 1}), ` +
        `${config.connections} connections, ${config.rounds} rounds × ${config.seconds} s` +
        (Number.isFinite(config.maxRequests)
          ? ` (at most ${fmt(config.maxRequests)} requests)`
          : '') +
        `, idle ${config.idleSeconds} s; RSS budget ${mib(config.budgetMiB)}; RSS at start ${mib(start.rss)}` +
        (config.nodeFlags.length > 0 ? `; gateway flags ${config.nodeFlags.join(' ')}` : ''),
    );
    console.log(
      'mix (weight × request, body size → answers; * = the gateway closes the connection after ' +
        `it: these kinds run on ${closingConnections()} connections of their own):`,
    );
    for (const traffic of classes) {
      const mark = closing.has(traffic) ? '*' : ' ';
      console.log(
        `  ${traffic.weight} × ${mark} ${traffic.name.padEnd(36)} ${fmt(bodyBytes(traffic)).padStart(9)} B → ${traffic.expect.join(' or ')}`,
      );
    }

    const totals = new Map();
    for (let r = 1; r <= config.rounds; r++) {
      const { kept, closed, statuses, tallies } = await round(
        gateway.url,
        classes,
        closing,
        tokens,
      );
      const memory = memoryOf(gateway.pid);
      const all = [kept, ...closed];
      const sum = (of) => all.reduce((total, result) => total + of(result), 0);
      // Answers received (autocannon's per-second request samples miss a run's last fraction).
      const answered = (result) =>
        Object.values(result.statusCodeStats).reduce((total, { count: n }) => total + n, 0);
      const requests = sum(answered);
      const closedRequests = requests - answered(kept);
      const fivexx = sum((result) => result['5xx']);
      const timeouts = sum((result) => result.timeouts);
      const seconds = Math.max(...all.map((result) => result.duration));
      const closedP99 = Math.max(0, ...closed.map((result) => result.latency.p99));
      console.log(
        `\nround ${r}/${config.rounds}: ${fmt(requests)} requests (${fmt(requests / seconds)} req/s), ` +
          `5xx ${fivexx}, timeouts ${timeouts}; p50 ${fmt(kept.latency.p50, 1)} ms, ` +
          `p99 ${fmt(kept.latency.p99, 1)} ms (closing kinds: ${fmt(closedRequests)} requests, ` +
          `p99 up to ${fmt(closedP99, 1)} ms, ${sum((result) => result.errors) - kept.errors} socket errors)`,
      );
      console.log(`  statuses: ${histogram(statuses)}`);
      console.log(`  RSS after the round ${mib(memory.rss)} (peak so far ${mib(memory.peak)})`);
      await printLiveHeap();
      if (requests === 0) fail(`round ${r} sent no request`);
      if (fivexx > 0) fail(`round ${r}: ${fivexx} answers were 5xx`);
      if (timeouts > 0) fail(`round ${r}: ${timeouts} requests timed out`);
      if (kept.errors > 0) fail(`round ${r}: ${kept.errors} socket errors on kept connections`);
      if (memory.rss > config.budgetMiB)
        fail(`round ${r}: RSS ${mib(memory.rss)} is over the budget`);
      for (const [key, tally] of tallies) {
        const total = totals.get(key) ?? {};
        for (const [label, n] of Object.entries(tally)) total[label] = (total[label] ?? 0) + n;
        totals.set(key, total);
      }
    }

    await sleep(config.idleSeconds * 1000);
    const idle = memoryOf(gateway.pid);
    console.log(
      `\nRSS after ${config.idleSeconds} s idle ${mib(idle.rss)}; peak RSS of the run ${mib(idle.peak)}`,
    );
    await printLiveHeap();
    if (idle.rss > config.budgetMiB) fail(`RSS after idle ${mib(idle.rss)} is over the budget`);
    if (idle.peak > config.budgetMiB) fail(`peak RSS ${mib(idle.peak)} is over the budget`);

    console.log('\nanswers per kind of request, all rounds:');
    for (const traffic of classes) {
      const total = totals.get(traffic) ?? {};
      console.log(`  ${traffic.name.padEnd(36)} ${histogram(total) || '(no answer)'}`);
      const unexpected = Object.keys(total).filter((label) => !traffic.expect.includes(label));
      if (unexpected.length > 0) {
        fail(
          `${traffic.name}: answered ${unexpected.join(', ')}, expected ${traffic.expect.join(' or ')}`,
        );
      }
      if (Object.keys(total).length === 0) fail(`${traffic.name}: never answered`);
    }
  } finally {
    clearTimeout(watchdog);
    await gateway.stop();
  }
  if (failures.length > 0) {
    console.error(`\nSOAK FAILED:\n${failures.map((why) => `  - ${why}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log(
      `\nsoak passed: no 5xx, every answer expected, RSS within ${mib(config.budgetMiB)}`,
    );
  }
}

await main();
