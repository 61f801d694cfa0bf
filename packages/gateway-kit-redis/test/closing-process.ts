import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./fixtures/close-at-once.ts', import.meta.url));

/** What a run of test/fixtures/close-at-once.ts came to. */
export interface ClosingRun {
  /** Whether the process exited by itself within the time given (else it was killed). */
  readonly exitedByItself: boolean;
  readonly code: number | null;
  /** Its last line once close() resolved: sockets still open and timers still pending then. */
  readonly report: { closed: boolean; sockets: number; timers: number } | undefined;
  /** Everything it printed, for failure messages. */
  readonly output: string;
}

/**
 * Runs test/fixtures/close-at-once.ts (constructs stores, closes them at once) with `env` and
 * waits for it to exit by itself, for `withinMs` at most: then it is killed, and the run says so.
 *
 * @example
 * const run = await runClosingProcess({ REDIS_URL: redis.url, STORES: 'job,record' });
 * expect(run.exitedByItself).toBe(true);
 */
export async function runClosingProcess(
  env: Record<string, string>,
  withinMs = 10_000,
): Promise<ClosingRun> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  let killed = false;
  // The deadline of the run (not a wait for something to happen): a process still running then
  // has something open that its stores' close() left behind.
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, withinMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const last = output.trim().split('\n').at(-1) ?? '';
  let report: ClosingRun['report'];
  try {
    report = JSON.parse(last);
  } catch {
    report = undefined;
  }
  return { exitedByItself: !killed, code, report, output };
}
