// Where a server's CPU goes per synchronous invoke: each named server runs under load with V8's
// sampling profiler (`--cpu-prof`), one at a time, and the profile's busy time is split per request
// into the socket write (the `write` system call, which on loopback also delivers the bytes to the
// load generator), Node's own JavaScript and natives (HTTP parser, streams, timers, promise
// queues), V8's own work outside JavaScript (`(program)`), garbage collection, and each package of
// JavaScript the server runs (the server file itself, the kit, valibot, Fastify, …).
//
//   node bench/profile.mjs gateway bare tuned        # bench/servers/<name>.mjs, `file:argument`
//
// A development figure, from one run per server: the profiler costs each server about the same,
// and per-request µs here run a little above run.mjs's CPU µs per request. Env: PROFILE_SECONDS (6).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchServer } from './server-process.mjs';

const seconds = Number(process.env.PROFILE_SECONDS ?? 6);
const names = process.argv.slice(2);
if (names.length === 0) throw new Error('usage: node bench/profile.mjs SERVER [SERVER …]');

/** Loads one server for `seconds` under the profiler; returns its profile and request count. */
async function profile(name) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
  const { child, generator, load } = await startBenchServer(name, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
  ]);
  const result = await load(seconds);
  generator.disconnect();
  if (result.bad > 0) throw new Error(`${name}: ${result.bad} bad answers`);
  // The server exits when its parent disconnects (announce.mjs); V8 writes the profile on exit.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.disconnect();
  await exited;
  const [written] = readdirSync(dir);
  const cpuProfile = JSON.parse(readFileSync(join(dir, written), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  return { cpuProfile, requests: result.requests };
}

/** Whose code a script URL is: a package's (by name), the kit's built `dist/`, or the server's. */
function codeOf(url) {
  const inModules = url.lastIndexOf('/node_modules/');
  if (inModules !== -1) {
    const [scope, name] = url.slice(inModules + 14).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  if (url.includes('/gateway-kit/dist/')) return '@svc/gateway-kit';
  return `bench/${url.split('/bench/').at(-1)}`;
}

/** The categories named by the profile's own frames; other frames go by their script URL. */
const PARTS = new Map([
  ['writeUtf8String', 'socket write (kernel)'],
  ['writeBuffer', 'socket write (kernel)'],
  ['(program)', 'V8 (program)'],
  ['(garbage collector)', 'garbage collection'],
]);
const NODE = 'Node (JS and natives)';

/** The profile's busy time per request, by category (µs). */
function split({ cpuProfile, requests }) {
  const sampled = new Map();
  cpuProfile.samples.forEach((id, i) => {
    sampled.set(id, (sampled.get(id) ?? 0) + (cpuProfile.timeDeltas[i] ?? 0));
  });
  const parts = new Map();
  for (const node of cpuProfile.nodes) {
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') continue;
    const part =
      PARTS.get(functionName) ?? (url === '' || url.startsWith('node:') ? NODE : codeOf(url));
    parts.set(part, (parts.get(part) ?? 0) + (sampled.get(node.id) ?? 0));
  }
  return new Map([...parts].map(([part, micros]) => [part, micros / requests]));
}

const results = [];
for (const name of names) {
  const parts = split(await profile(name));
  results.push({ name, parts });
  console.log(`${name}: profiled`);
}
const total = (parts) => [...parts.values()].reduce((sum, x) => sum + x, 0);
const rows = [...new Set(results.flatMap(({ parts }) => [...parts.keys()]))]
  .map((part) => ({ part, max: Math.max(...results.map(({ parts }) => parts.get(part) ?? 0)) }))
  .filter(({ max }) => max >= 0.05)
  .sort((a, b) => b.max - a.max);
console.log(`\n| µs of CPU per request | ${names.join(' | ')} |`);
console.log(`|---|${names.map(() => '---:').join('|')}|`);
for (const { part } of rows)
  console.log(
    `| ${part} | ${results.map(({ parts }) => (parts.get(part) ?? 0).toFixed(2)).join(' | ')} |`,
  );
console.log(`| **busy** | ${results.map(({ parts }) => total(parts).toFixed(2)).join(' | ')} |`);
