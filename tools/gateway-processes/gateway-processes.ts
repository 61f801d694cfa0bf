import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';

/** A gateway fixture process on a free loopback port. */
export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Whether the process is still running. */
  alive(): boolean;
}

/** An answer of a gateway process: status, headers and parsed JSON body. */
export interface GatewayCall {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as JSON and assert them with expect
  readonly body: any;
}

/** What {@link gatewayProcesses} gives a store package's tests. */
export interface GatewayProcesses {
  /** Starts the fixture with `env` added to this process's environment (`PORT` 0 unless given). */
  startGateway(env: Record<string, string>): Promise<GatewayProcess>;
  /** Kills every fixture process still running (for `afterAll`). */
  stopAllGateways(): Promise<void>;
  /** One HTTP call, with `token` (default: the fixture's token) as the bearer. */
  call(
    gateway: GatewayProcess,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<GatewayCall>;
  /** POST /v1/invoke of `actionId` with `input` (and body overrides such as `idempotencyKey`). */
  invoke(
    gateway: GatewayProcess,
    actionId: string,
    input?: Record<string, unknown>,
    overrides?: Parameters<typeof invokeBody>[2],
    token?: string,
  ): Promise<GatewayCall>;
}

/**
 * Gateway processes of one fixture script: a Node program (run with type stripping) that serves a
 * gateway and prints `listening <url>` once it listens.
 *
 * @example
 * const { startGateway, invoke } = gatewayProcesses(
 *   new URL('./fixtures/gateway-process.ts', import.meta.url),
 *   'test-token',
 * );
 * const a = await startGateway({ REDIS_URL: redis.url, PREFIX: 'p:' });
 */
export function gatewayProcesses(fixture: URL, token: string): GatewayProcesses {
  const script = fileURLToPath(fixture);
  const running = new Set<GatewayProcess>();

  async function startGateway(env: Record<string, string>): Promise<GatewayProcess> {
    const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', script], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`gateway did not start:\n${output}`)),
        15_000,
      );
      const collect = (chunk: Buffer): void => {
        output += chunk.toString();
        const match = /listening (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`gateway exited with ${code}:\n${output}`));
      });
    });
    const gateway: GatewayProcess = {
      url,
      child,
      alive: () => child.exitCode === null && child.signalCode === null,
      stop: async (signal = 'SIGTERM') => {
        running.delete(gateway);
        if (gateway.alive()) child.kill(signal);
        await exited;
      },
    };
    running.add(gateway);
    return gateway;
  }

  async function call(
    gateway: GatewayProcess,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    bearer = token,
  ): Promise<GatewayCall> {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : undefined,
    };
  }

  return {
    startGateway,
    stopAllGateways: async () => {
      await Promise.all([...running].map((gateway) => gateway.stop('SIGKILL')));
    },
    call,
    invoke: (gateway, actionId, input = {}, overrides = {}, bearer = token) =>
      call(gateway, 'POST', '/v1/invoke', invokeBody(actionId, input, overrides), bearer),
  };
}

/** Polls `check` every 20 ms until it returns a value other than `undefined`, or times out. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
