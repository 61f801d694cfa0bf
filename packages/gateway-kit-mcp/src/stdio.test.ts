import { PassThrough } from 'node:stream';
import { createGateway, defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import { isMcpConfigError, McpConfigError } from './mcp-config-error.ts';
import { type StdioOptions, serveStdio } from './stdio.ts';

const gateway = createGateway({
  gateway: { id: 'x', name: 'x' },
  actions: [defineAction({ id: 'echo', input: v.object({}), run: () => ({}) })],
  auth: { tokens: ['t0ken'] },
});

it.each([
  [
    { token: process.env.SURELY_UNSET_MCP_TOKEN },
    'serveStdio: token is undefined: is an environment variable unset? (expected the gateway token)',
  ],
  [{ token: '  ' }, 'serveStdio: token is a string: expected the gateway token.'],
  // A token read as a number (unquoted in a YAML file) is not printed.
  [{ token: 8675309123 }, 'serveStdio: token is a number: expected the gateway token.'],
  [
    { token: 't0ken', url: 'localhost:8080' },
    'serveStdio: url is a string: expected an absolute http(s) URL.',
  ],
  [
    { token: 't0ken', waitMs: -1 },
    'serveStdio: waitMs is the number -1: expected a whole number from 0 to 600000.',
  ],
])('serveStdio refuses %j before it reads stdin, naming the option', async (options, message) => {
  await expect(serveStdio(gateway, options as StdioOptions)).rejects.toThrow(
    new McpConfigError(message),
  );
});

/**
 * What `serveStdio(...args)` rejects with, as a JavaScript caller sees it. Given streams of its
 * own, so arguments it wrongly accepts never touch the test process's stdin and stdout.
 */
async function refusalOf(gatewayArg: unknown, options: Record<string, unknown>): Promise<Error> {
  const streams = { stdin: new PassThrough(), stdout: new PassThrough() };
  const serve = serveStdio as (gateway: unknown, options: unknown) => ReturnType<typeof serveStdio>;
  try {
    const server = await serve(gatewayArg, { ...options, ...streams });
    await server.close();
  } catch (error) {
    expect(isMcpConfigError(error)).toBe(true);
    return error as Error;
  }
  throw new Error('serveStdio accepted the arguments');
}

it('serveStdio refuses an unknown option, with the known ones and never a value', async () => {
  const refusal = await refusalOf(gateway, { token: 't0ken', tokn: 'sec-r3t', wait: 5 });
  expect(refusal.message).toBe(
    'serveStdio: unknown options "tokn", "wait" (known: token, url, stdin, stdout, basePath, waitMs, pollIntervalMs, taskTtlMs).',
  );
  expect(refusal.message).not.toContain('sec-r3t');
});

it.each([
  [undefined, 'undefined'],
  [{}, 'an object'],
  [{ token: 't0ken' }, 'an object'],
])('serveStdio refuses the gateway %j, saying what to pass', async (wrong, kind) => {
  const refusal = await refusalOf(wrong, { token: 't0ken' });
  expect(refusal.message).toBe(
    `serveStdio: gateway is ${kind}: expected a gateway made by createGateway() from @svc/gateway-kit, as the first argument: serveStdio(gateway, { token }).`,
  );
});
