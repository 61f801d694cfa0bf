import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server.ts';

const run = promisify(execFile);

/** One `redis-server --cluster-enabled yes` of a {@link TestCluster}. */
export interface ClusterNode {
  readonly port: number;
  readonly url: string;
  /** Whether the process runs (it was not killed) and is not paused (see `TestCluster.pause`). */
  alive(): boolean;
}

/** A local Redis Cluster (3 primaries, 3 replicas) on free loopback ports, for one test file. */
export interface TestCluster {
  readonly nodes: readonly ClusterNode[];
  /** Seed URLs (every node), as `createCluster({ rootNodes })` or `REDIS_CLUSTER_URLS` take them. */
  readonly urls: readonly string[];
  /** The node currently serving `slot` as primary. */
  primaryOf(slot: number): Promise<ClusterNode>;
  /** The primaries now, each with the slot ranges it serves. */
  primaries(): Promise<{ node: ClusterNode; slots: [number, number][] }[]>;
  /** SIGKILLs a node and waits until the process is gone. */
  kill(node: ClusterNode): Promise<void>;
  /**
   * SIGSTOPs a node: it keeps its sockets open and answers nothing. It counts as not alive until
   * {@link resume}d, so `primaries` and `waitUntilOk` ask the others.
   */
  pause(node: ClusterNode): void;
  /** SIGCONTs a node {@link pause}d. */
  resume(node: ClusterNode): void;
  /** A primary with a replica in sync, and the first slot it serves: one that can fail over. */
  primaryWithReplica(): Promise<{ node: ClusterNode; slot: number }>;
  /** Resolves once every slot is served by a live primary again (`cluster_state:ok` everywhere). */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes the data directories. */
  stop(): Promise<void>;
}

/** `redis-cli` against one node (no shell; arguments as given). */
async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    env: cleanEnv(),
    timeout: 10_000,
  });
  return stdout;
}

// redis-server aborts under libfaketime (suites also run with the clock moved forward).
function cleanEnv(): NodeJS.ProcessEnv {
  const { LD_PRELOAD: _preload, FAKETIME: _faketime, ...env } = process.env;
  return env;
}

function startNode(port: number, dir: string, nodeTimeoutMs: number): Promise<ChildProcess> {
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      // How long a primary may be unreachable before its replica takes over.
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server (cluster) did not start:\n${output}`));
    }, 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server (cluster) exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Starts six `redis-server --cluster-enabled yes` on free loopback ports, joins them with
 * `redis-cli --cluster create … --cluster-replicas 1` (3 primaries, each with a replica) and waits
 * until the cluster is ok.
 *
 * @example
 * const cluster = await startCluster();
 * afterAll(() => cluster.stop());
 */
export async function startCluster(options: { nodeTimeoutMs?: number } = {}): Promise<TestCluster> {
  // A port found free can be taken before redis-server binds it (other processes share the
  // machine): start afresh on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(options);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

async function startClusterOnce(options: { nodeTimeoutMs?: number }): Promise<TestCluster> {
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  const root = mkdtempSync(join(tmpdir(), 'gateway-kit-redis-cluster-'));
  const ports: number[] = [];
  // freePort releases the port before use: pick six distinct ones.
  while (ports.length < 6) {
    const port = await freePort();
    // The cluster bus listens on port + 10000: both must be free and below 65536.
    if (port + 10_000 < 65_536 && !ports.includes(port) && (await portFree(port + 10_000)))
      ports.push(port);
  }
  const children = new Map<number, ChildProcess>();
  const paused = new Set<number>();
  const stopAll = async (): Promise<void> => {
    await Promise.all([...children.values()].map((child) => killChild(child)));
    children.clear();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    // Every node that started is tracked at once, so a failure of another still stops it.
    await Promise.all(
      ports.map(async (port) => {
        children.set(port, await startNode(port, join(root, String(port)), nodeTimeoutMs));
      }),
    );
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { env: cleanEnv(), timeout: 30_000 },
    );
  } catch (error) {
    await stopAll();
    throw error;
  }

  const nodes: ClusterNode[] = ports.map((port) => ({
    port,
    url: `redis://127.0.0.1:${port}`,
    alive: () => {
      const child = children.get(port);
      return !!child && child.exitCode === null && child.signalCode === null && !paused.has(port);
    },
  }));
  const byPort = new Map(nodes.map((node) => [node.port, node]));

  const primaries = async (): Promise<{ node: ClusterNode; slots: [number, number][] }[]> => {
    const live = nodes.find((node) => node.alive());
    if (!live) throw new Error('no live cluster node');
    const lines = (await cli(live.port, 'CLUSTER', 'NODES')).trim().split('\n');
    const found: { node: ClusterNode; slots: [number, number][] }[] = [];
    for (const line of lines) {
      const [, address, flags, , , , , linkState, ...slots] = line.split(' ');
      if (!flags?.includes('master') || flags.includes('fail') || linkState !== 'connected')
        continue;
      const port = Number(address?.split('@')[0]?.split(':')[1]);
      const node = byPort.get(port);
      if (!node?.alive() || slots.length === 0) continue;
      found.push({
        node,
        slots: slots
          .filter((range) => !range.startsWith('['))
          .map((range) => {
            const [from, to] = range.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      });
    }
    return found;
  };

  const waitUntilOk = async (timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const live = nodes.filter((node) => node.alive());
      const states = await Promise.all(
        live.map((node) => cli(node.port, 'CLUSTER', 'INFO').catch(() => '')),
      );
      const ok = states.every((info) => info.includes('cluster_state:ok'));
      const covered = ok && (await primaries()).flatMap((p) => p.slots);
      const slots = covered ? covered.reduce((sum, [from, to]) => sum + to - from + 1, 0) : 0;
      if (ok && slots === 16_384) return;
      if (Date.now() > deadline)
        throw new Error(`the Redis Cluster is not ok after ${timeoutMs} ms:\n${states.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** Until every replica's link to its primary is up: a failover needs a replica in sync. */
  const waitForReplicas = async (timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const infos = await Promise.all(
        nodes.map((node) => cli(node.port, 'INFO', 'replication').catch(() => '')),
      );
      const synced = infos.filter(
        (info) => info.includes('role:slave') && info.includes('master_link_status:up'),
      ).length;
      if (synced === nodes.length / 2) return;
      if (Date.now() > deadline)
        throw new Error(`only ${synced} Redis Cluster replicas in sync after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  try {
    await waitUntilOk();
    await waitForReplicas();
  } catch (error) {
    await stopAll();
    throw error;
  }

  return {
    nodes,
    urls: nodes.map((node) => node.url),
    primaries,
    primaryOf: async (slot) => {
      for (const { node, slots } of await primaries())
        if (slots.some(([from, to]) => slot >= from && slot <= to)) return node;
      throw new Error(`no primary serves slot ${slot}`);
    },
    kill: async (node) => {
      const child = children.get(node.port);
      if (child) await killChild(child);
    },
    pause: (node) => {
      children.get(node.port)?.kill('SIGSTOP');
      paused.add(node.port);
    },
    resume: (node) => {
      children.get(node.port)?.kill('SIGCONT');
      paused.delete(node.port);
    },
    primaryWithReplica: async () => {
      const live = nodes.find((node) => node.alive());
      if (!live) throw new Error('no live cluster node');
      const lines = (await cli(live.port, 'CLUSTER', 'NODES')).trim().split('\n');
      const idOf = (line: string) => line.split(' ')[0];
      const portOf = (line: string) => Number(line.split(' ')[1]?.split('@')[0]?.split(':')[1]);
      for (const { node, slots } of await primaries()) {
        const id = idOf(lines.find((line) => portOf(line) === node.port) ?? '');
        const replica = lines.find((line) => {
          const [, , flags, master, , , , linkState] = line.split(' ');
          return flags === 'slave' && master === id && linkState === 'connected';
        });
        if (replica && byPort.get(portOf(replica))?.alive()) return { node, slot: slots[0]![0] };
      }
      throw new Error('no primary has a live replica');
    },
    waitUntilOk,
    stop: stopAll,
  };
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
