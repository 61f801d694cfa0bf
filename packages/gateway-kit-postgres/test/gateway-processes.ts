import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';

const FIXTURE = fileURLToPath(new URL('./fixtures/gateway-process.ts', import.meta.url));
export const TOKEN = 'test-token';

/** A gateway process (test/fixtures/gateway-process.ts) on a free loopback port. */
export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Sends `signal` and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Whether the process is still running. */
  alive(): boolean;
}

const running = new Set<GatewayProcess>();

/**
 * Starts a gateway process sharing the database at `DATABASE_URL` in schema `SCHEMA`.
 *
 * @example
 * const a = await startGateway({ DATABASE_URL: postgres.url, SCHEMA: 's1' });
 */
export async function startGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', FIXTURE], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), 15_000);
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

/** Kills every gateway process still running (for `afterAll`). */
export async function stopAllGateways(): Promise<void> {
  await Promise.all([...running].map((gateway) => gateway.stop('SIGKILL')));
}

/** One HTTP call to a gateway: status, headers and parsed JSON body. */
export async function call(
  gateway: GatewayProcess,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as JSON and assert them with expect
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
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

/** POST /v1/invoke of `actionId` with `input` (and body overrides such as `idempotencyKey`). */
export function invoke(
  gateway: GatewayProcess,
  actionId: string,
  input: Record<string, unknown> = {},
  overrides: Parameters<typeof invokeBody>[2] = {},
) {
  return call(gateway, 'POST', '/v1/invoke', invokeBody(actionId, input, overrides));
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
