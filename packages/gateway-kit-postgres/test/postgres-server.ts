import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PostgreSQL server (initdb into a temporary folder, pg_ctl) on a free loopback port. */
export interface TestPostgres {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication, loopback only). */
  readonly url: string;
  /** `pg_ctl stop -m immediate`: every backend dies at once, as in a crash. */
  crash(): Promise<void>;
  /** `pg_ctl start` again on the same port and data folder (crash recovery runs). */
  start(): Promise<void>;
  /** SIGSTOPs the postmaster and every backend: sockets stay open, nothing answers. */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** CPU seconds the server used so far (postmaster, backends, exited backends), from /proc. */
  cpuSeconds(): number;
  /** Stops it for good and removes its folder. */
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

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

/** Debian installs the server binaries outside PATH: /usr/lib/postgresql/<major>/bin. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0)
    throw new Error('PostgreSQL server binaries not found: install Debian’s postgresql package.');
  return join(root, majors[0]!, 'bin');
}

/** As root, the server runs as the `postgres` user (it refuses to run as root). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function run(command: string, args: string[], user: ReturnType<typeof runAs>): Promise<string> {
  // The clock may be moved by libfaketime for the suites; the server keeps the real one.
  const { LD_PRELOAD: _preload, FAKETIME: _faketime, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...env, LC_ALL: 'C' },
      ...(user ?? {}),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * Creates and starts a PostgreSQL cluster for one test file.
 *
 * @example
 * const postgres = await startPostgres();
 * afterAll(() => postgres.stop());
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const user = runAs();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-kit-postgres-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    user,
  );
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c max_connections=200',
    // Test data is disposable; crash recovery after `-m immediate` still replays the WAL.
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  const start = async (): Promise<void> => {
    await run(
      join(bin, 'pg_ctl'),
      ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start'],
      user,
    );
  };
  const stopWith = async (mode: 'immediate' | 'fast'): Promise<void> => {
    if (!existsSync(join(data, 'postmaster.pid'))) return;
    await run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop'], user).catch(() => {});
  };
  const postmaster = (): number | undefined => {
    const pidFile = join(data, 'postmaster.pid');
    return existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined;
  };
  const children = (parent: number): number[] =>
    execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)])
      .toString()
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
  const signal = (name: NodeJS.Signals): void => {
    const parent = postmaster();
    if (parent === undefined) return;
    const send = (pid: number): void => {
      try {
        process.kill(pid, name);
      } catch {
        // gone meanwhile
      }
    };
    // The postmaster first: once it is stopped it forks no new backend, so the list of its
    // children read afterwards is complete.
    send(parent);
    for (const pid of children(parent)) send(pid);
  };
  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash: () => stopWith('immediate'),
    start,
    cpuSeconds: () => {
      const parent = postmaster();
      if (parent === undefined) return 0;
      // utime, stime (and for the postmaster cutime, cstime: its exited backends), in ticks.
      const ticks = (pid: number, fields: number): number => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          let sum = 0;
          for (let i = 11; i < 11 + fields; i++) sum += Number(after[i]);
          return sum;
        } catch {
          return 0; // exited meanwhile
        }
      };
      let total = ticks(parent, 4);
      for (const pid of children(parent)) total += ticks(pid, 2);
      return total / CLOCK_TICKS;
    },
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    stop: async () => {
      signal('SIGCONT');
      await stopWith('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
