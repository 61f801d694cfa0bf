import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Gateway } from '@svc/gateway-kit';
import { type Caller, gatewayRequest } from './calls/gateway-request.ts';
import { createMcpServer } from './create-mcp-server.ts';
import { McpConfigError } from './mcp-config-error.ts';
import {
  CALL_OPTION_KEYS,
  callSettings,
  checkGateway,
  checkOptionKeys,
  type McpCallOptions,
  refuse,
} from './options.ts';

/** Everything `serveStdio` accepts. */
export interface StdioOptions extends McpCallOptions {
  /**
   * The bearer token every tool call presents to the gateway, e.g. `process.env.GATEWAY_TOKEN`:
   * the gateway resolves the principal from it (jobs, approvals, idempotency and quotas are that
   * principal's). Never printed.
   */
  readonly token: string;
  /**
   * Base address the gateway sees on the forwarded requests (links to jobs and approvals are built
   * from it when the gateway has no `url`). Defaults to `http://localhost`.
   */
  readonly url?: string;
  /** Stream the MCP client's messages are read from; `process.stdin` by default. */
  readonly stdin?: Readable;
  /** Stream the server's messages are written to; `process.stdout` by default. */
  readonly stdout?: Writable;
}

// Every option: a key added to the interface without one here fails the typecheck.
const KNOWN = Object.keys({
  token: true,
  url: true,
  stdin: true,
  stdout: true,
  ...CALL_OPTION_KEYS,
} satisfies { readonly [Key in keyof StdioOptions]-?: true });

/** A running stdio MCP server. */
export interface StdioMcpServer {
  /** Stops reading stdin; in-flight tool calls are aborted (their jobs cancelled). */
  close(): Promise<void>;
}

/**
 * Serves the gateway's actions as MCP tools over stdio (the MCP SDK's stdio transport), for an MCP
 * client that starts this process locally. Each tool call goes through `gateway.fetch` with
 * `Authorization: Bearer <token>`; a token the gateway refuses is an error before anything is
 * served.
 *
 * @example
 * await serveStdio(gateway, { token: process.env.GATEWAY_TOKEN ?? '' });
 */
export async function serveStdio(gateway: Gateway, options: StdioOptions): Promise<StdioMcpServer> {
  // Also for JavaScript callers: checked before anything reads stdin.
  checkGateway('serveStdio', gateway, 'serveStdio(gateway, { token })');
  checkOptionKeys('serveStdio', 'options', options, KNOWN, 'expected { token, url?, … }.');
  const settings = callSettings(options, 'serveStdio');
  if (typeof options.token !== 'string' || options.token.trim() === '')
    refuse('serveStdio', 'token', options.token, 'expected the gateway token.', true);
  const url = options.url ?? 'http://localhost';
  if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    refuse('serveStdio', 'url', url, 'expected an absolute http(s) URL.', true);
  const origin = new URL(url).origin;
  const caller: Caller = {
    origin,
    headers: new Headers({ authorization: `Bearer ${options.token}` }),
  };
  const check = await gatewayRequest(gateway, caller, `${settings.basePath}/v1/manifest`, {
    method: 'GET',
  });
  if (check.status !== 200) {
    throw new McpConfigError(
      `serveStdio: token is a string the gateway refused (HTTP ${check.status}): set a token it accepts.`,
    );
  }
  const server = createMcpServer(gateway, settings, { callerOf: () => caller });
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  return { close: () => server.close() };
}
