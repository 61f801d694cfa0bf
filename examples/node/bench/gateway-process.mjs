// The demo gateway (src/server.ts) as a child process of the soak, so that its memory is its own:
// started with PORT=0, ready once it prints its `listening on <url>` line, measured from
// /proc/<pid>/status, stopped with SIGTERM (SIGKILL after 5 s).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const EXAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const MAX_OUTPUT_CHARS = 64 * 1024;

/**
 * Starts `node src/server.ts` on 127.0.0.1 with the in-memory stores and every other setting at
 * its default; `env` adds the tokens (and `REDIS_URL` for the Redis stores). Resolves with
 * `{ pid, url, output(), stop(), exited() }`.
 */
export function startGateway(env, { heapProbe = false, nodeFlags = [] } = {}) {
  const childEnv = { ...process.env };
  // The defaults unless `env` says otherwise: no Redis, no callbacks to this machine, no public URL.
  for (const name of ['REDIS_URL', 'ALLOW_LOOPBACK_CALLBACKS', 'GATEWAY_URL', 'NODE_OPTIONS']) {
    delete childEnv[name];
  }
  Object.assign(childEnv, { PORT: '0', HOST: '127.0.0.1' }, env);
  const probe = heapProbe ? ['--expose-gc', '--import', './bench/heap-probe.mjs'] : [];
  const child = spawn(process.execPath, [...nodeFlags, ...probe, 'src/server.ts'], {
    cwd: EXAMPLE_DIR,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`demo gateway ${why}\n--- output ---\n${output}`)));
    };
    const timer = setTimeout(
      () => fail(`printed no "listening on" line in ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const onError = (error) => fail(`did not start: ${error.message}`);
    const onExit = (code, signal) => fail(`exited (code ${code}, signal ${signal})`);
    child.once('error', onError);
    child.once('exit', onExit);
    // Kept for failure messages; the server prints a few lines at startup and nothing per request.
    const keep = (chunk) => {
      if (output.length < MAX_OUTPUT_CHARS) output += chunk;
    };
    child.stderr.on('data', keep);
    child.stdout.on('data', (chunk) => {
      keep(chunk);
      // The whole line: a chunk may end in the middle of the URL.
      const url = /listening on (http:\/\/\S+)\r?\n/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        child.off('exit', onExit);
        child.off('error', onError);
        resolve({
          pid: child.pid,
          url,
          output: () => output,
          stop,
          /** The exit code or signal if the process ended (a crash), else `undefined`. */
          exited: () => child.exitCode ?? child.signalCode ?? undefined,
          liveHeap: () => liveHeap(child),
        });
      }
    });
  });
}

/** With the heap probe loaded: heap bytes still used after a full GC, heap total and external, in MiB. */
function liveHeap(child) {
  return new Promise((resolve, reject) => {
    let line = '';
    const timer = setTimeout(() => done(new Error('heap probe: no answer in 10 s')), 10_000);
    const done = (error, value) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk) => {
      line += chunk;
      const json = /heap-probe (\{.*\})\n/.exec(line)?.[1];
      if (!json) return;
      const bytes = JSON.parse(json);
      const mib = (n) => n / 2 ** 20;
      done(undefined, {
        used: mib(bytes.heapUsed),
        total: mib(bytes.heapTotal),
        external: mib(bytes.external),
      });
    };
    child.stdout.on('data', onData);
    child.kill('SIGUSR2');
  });
}

/** Resident set size now and at its peak (VmHWM) of process `pid`, in MiB (Linux /proc). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field) => {
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    if (kib === undefined) throw new Error(`/proc/${pid}/status has no ${field} line`);
    return Number(kib) / 1024;
  };
  return { rss: mib('VmRSS'), peak: mib('VmHWM') };
}
