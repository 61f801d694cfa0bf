// Starting one benchmark server for paired.mjs and profile.mjs: bench/servers/<file>.mjs in a child
// process pinned to core 0, its 200 answer read once, and a load generator (load.mjs) pinned to
// core 1 that expects that answer. run.mjs starts its servers itself (it also checks refusals).
import { execFileSync, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BODY, REQUEST_HEADERS } from './fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Pins every thread of `pid` to `core` (no-op without taskset). */
function pin(pid, core) {
  try {
    execFileSync('taskset', ['-a', '-pc', String(core), String(pid)], { stdio: 'ignore' });
  } catch {
    // No taskset: unpinned.
  }
}

/**
 * Starts the server `name` (`file` or `file:argument`, as run.mjs passes arguments) with Node's
 * `execArgv`, and a load generator for it: `load(seconds)` resolves to load.mjs's result.
 */
export async function startBenchServer(name, execArgv = []) {
  const [file, argument] = name.split(':');
  const child = fork(`${here}servers/${file}.mjs`, argument ? [argument] : [], { execArgv });
  const { port, prefix = '' } = await new Promise((resolve) => child.once('message', resolve));
  pin(child.pid, 0);
  const url = `http://127.0.0.1:${port}${prefix}/v1/invoke`;
  const answer = await fetch(url, { method: 'POST', headers: REQUEST_HEADERS, body: BODY });
  const expectBody = await answer.text();
  if (answer.status !== 200) throw new Error(`${name}: ${answer.status} ${expectBody}`);
  const generator = fork(`${here}load.mjs`);
  pin(generator.pid, 1);
  const load = (seconds) =>
    new Promise((resolve, reject) => {
      generator.once('message', (message) =>
        message.ok ? resolve(message.result) : reject(new Error(message.error)),
      );
      generator.send({
        url,
        seconds,
        connections: 64,
        body: BODY,
        headers: REQUEST_HEADERS,
        expectBody,
      });
    });
  return { child, generator, load };
}
