import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server child process on a free loopback port, for one test file. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** SIGKILLs the server (an outage) and waits until it is gone. */
  kill(): Promise<void>;
  /** SIGSTOPs the server: it keeps its sockets and accepts connections, but answers nothing. */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** Starts it again on the same port (and data directory). */
  start(): Promise<void>;
  /** Stops it for good and removes its data directory. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the OS picks one; it is released before use). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts `redis-server` (Debian's, on PATH) with no persistence, or with AOF when `persistent`.
 *
 * @example
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 */
export async function startRedis(options: { persistent?: boolean } = {}): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-kit-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.persistent ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--maxmemory-policy',
    'noeviction',
  ];
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    // redis-server aborts under libfaketime (the suites also run with the clock moved forward):
    // it gets the real clock, which is all the stores' TTLs need (they are relative).
    const { LD_PRELOAD: _preload, FAKETIME: _faketime, ...env } = process.env;
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${output}`)),
        10_000,
      );
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  };
  const kill = async (): Promise<void> => {
    child?.kill('SIGCONT');
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    start,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
