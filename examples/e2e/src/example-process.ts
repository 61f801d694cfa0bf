import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How to start one example server as a child process. */
export interface ExampleCommand {
  /** Executable: `process.execPath` for Node, `deno`, `bun`. */
  readonly command: string;
  readonly args: readonly string[];
  /** Directory under examples/, e.g. `deno`. */
  readonly example: string;
  /** Extra environment on top of the test's own (PORT=0 is always set). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * For a server that prints no `listening on <url>` line (`next start`): the line that says it
   * is ready, and the gateway URL to use then.
   */
  readonly ready?: { readonly line: RegExp; readonly url: string };
  /**
   * For a server that prints its URL in another line: that line, its first group the URL
   * (wrangler prints `Ready on <url>`). Default `listening on <url>`.
   */
  readonly listening?: RegExp;
  /** How long it may take to start, in ms. Default 20 000. */
  readonly startTimeoutMs?: number;
}

/** A started example: the URL it printed, its output so far, and a way to stop it. */
export interface RunningExample {
  /** The URL of its `listening on <url>` line (the gateway base URL). */
  readonly url: string;
  /** Everything it printed on stdout and stderr, for failure messages. */
  output(): string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s); resolves once it exited. */
  stop(): Promise<void>;
}

/** examples/<name>, as an absolute path. */
export const exampleDir = (name: string): string =>
  fileURLToPath(new URL(`../../${name}/`, import.meta.url));

const START_TIMEOUT_MS = 20_000;

/** Signals the child's whole process group: `deno` from npm, for one, is a Node shim around the binary. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // The group is gone already.
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(killer);
      // Whatever the leader left behind goes too.
      signalGroup(child, 'SIGKILL');
      resolve();
    };
    const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000);
    if (child.exitCode !== null || child.signalCode !== null) done();
    else {
      child.once('exit', done);
      signalGroup(child, 'SIGTERM');
    }
  });
}

/**
 * Starts an example with `PORT=0` and waits for its `listening on http://…` line (or its
 * {@link ExampleCommand.ready} line). If it exits,
 * fails to spawn or stays silent for 20 s, it is killed and the promise rejects with its output.
 */
export function startExample(spec: ExampleCommand): Promise<RunningExample> {
  const child = spawn(spec.command, [...spec.args], {
    cwd: exampleDir(spec.example),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stopping it stops every process it started.
    detached: true,
  });
  let output = '';
  const running = (url: string): RunningExample => ({
    url,
    output: () => output,
    stop: () => stopProcess(child),
  });
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      void stopProcess(child).then(() =>
        reject(new Error(`${spec.example}: ${why}\n--- output ---\n${output}`)),
      );
    };
    const startTimeoutMs = spec.startTimeoutMs ?? START_TIMEOUT_MS;
    const timer = setTimeout(
      () => fail(`no "listening on" line within ${startTimeoutMs / 1000} s`),
      startTimeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const url = spec.ready
        ? spec.ready.line.test(output)
          ? spec.ready.url
          : undefined
        : (spec.listening ?? /listening on (http:\/\/\S+)/).exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        child.off('close', onExit);
        resolve(running(url.replace(/\/+$/, '')));
      }
    };
    const onExit = (code: number | null, signal: string | null): void =>
      fail(`exited (code ${code}, signal ${signal}) before listening`);
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('close', onExit);
    child.once('error', (error) => fail(`could not start ${spec.command}: ${error.message}`));
  });
}
