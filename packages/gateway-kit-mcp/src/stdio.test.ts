import { createGateway, defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import { McpConfigError } from './mcp-config-error.ts';
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
