// Two servers under load at the same time, for comparing them on a machine that others share.
//
//   node bench/paired.mjs bare gateway            # bench/servers/bare.mjs against gateway.mjs
//   node bench/paired.mjs gateway fastify:valibot # `file:argument`, as run.mjs passes arguments
//
// Both servers are pinned to core 0 and both load generators (bench/load.mjs, 64 connections
// each) to core 1, where `taskset` exists, and every round loads both at once: whatever else runs
// on the machine slows both alike, and the scheduler splits core 0 between two busy servers, so
// the ratio of their throughputs is the inverse ratio of their CPU cost per request. run.mjs
// measures one server at a time; its CPU µs per request and req/s swing by 2× on a busy machine,
// while this ratio stays within a few per cent. It is a development figure: the recorded figures
// come from run.mjs on an idle machine. Env: PAIRED_ROUNDS (5), PAIRED_SECONDS (3).
import { readFileSync } from 'node:fs';
import { startBenchServer } from './server-process.mjs';

const rounds = Number(process.env.PAIRED_ROUNDS ?? 5);
const seconds = Number(process.env.PAIRED_SECONDS ?? 3);
const names = process.argv.slice(2);
if (names.length !== 2) throw new Error('usage: node bench/paired.mjs SERVER SERVER');

/** User + system CPU time of a process so far, in µs (assumes 100 clock ticks per second). */
function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 1e4;
}

async function start(name) {
  const { child, generator, load } = await startBenchServer(name);
  const stop = () => {
    child.disconnect();
    generator.disconnect();
  };
  return { name, pid: child.pid, load, stop, rps: [], cpu: [], p99: [] };
}

const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1];
const servers = [await start(names[0]), await start(names[1])];
try {
  await Promise.all(servers.map((server) => server.load(1)));
  const ratios = [];
  for (let round = 1; round <= rounds; round++) {
    const before = servers.map((server) => cpuMicros(server.pid));
    const results = await Promise.all(servers.map((server) => server.load(seconds)));
    servers.forEach((server, i) => {
      if (results[i].bad > 0) throw new Error(`${server.name}: ${results[i].bad} bad answers`);
      server.rps.push(results[i].rps);
      server.cpu.push((cpuMicros(server.pid) - before[i]) / results[i].requests);
      server.p99.push(results[i].latencyUs.p99);
    });
    ratios.push(results[1].rps / results[0].rps);
    console.log(
      `round ${round}: ` +
        servers
          .map(
            (s) =>
              `${s.name} ${Math.round(s.rps.at(-1))} req/s ${s.cpu.at(-1).toFixed(1)} µs CPU/req`,
          )
          .join(', ') +
        `, ratio ${ratios.at(-1).toFixed(3)}`,
    );
  }
  for (const s of servers)
    console.log(
      `${s.name}: median ${Math.round(median(s.rps))} req/s, ${median(s.cpu).toFixed(1)} µs CPU/req, p99 ${Math.round(median(s.p99))} µs`,
    );
  console.log(
    `${names[1]} / ${names[0]} throughput, median of rounds: ${median(ratios).toFixed(3)}`,
  );
} finally {
  for (const server of servers) server.stop();
}
