import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from '@svc/gateway-kit';
import { callAction } from './calls/call-action.ts';
import type { Caller } from './calls/gateway-request.ts';
import type { CallSettings } from './options.ts';
import { actionTools } from './tools/action-tools.ts';

/** What the MCP SDK hands a request handler. */
export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How the server learns who calls, and counts the calls in flight (for idle sessions). */
export interface ServerHooks {
  /** The caller of one request: from its HTTP headers, or the configured token on stdio. */
  readonly callerOf: (extra: HandlerExtra) => Caller;
  /** Around each tool call (the HTTP handler keeps a busy session alive). */
  readonly onCallStart?: () => void;
  readonly onCallEnd?: () => void;
}

/**
 * The `_meta` key of a `tools/call` whose string value becomes the invoke's `idempotencyKey`: a
 * client retrying a call with the same key gets the same answer, and the action runs once.
 *
 * @example
 * await client.callTool({
 *   name: 'issue-refund',
 *   arguments: { orderId: 'ord_2001', amountCents: 1500 },
 *   _meta: { [IDEMPOTENCY_KEY]: 'refund-ord_2001-call-1' },
 * });
 */
export const IDEMPOTENCY_KEY = 'svc/idempotencyKey';

/** Longest client name or version copied into the invoke request's `context`. */
const MAX_CLIENT_FIELD = 200;

const clip = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value.slice(0, MAX_CLIENT_FIELD);

/**
 * An MCP server (the SDK's `Server`) offering the gateway's actions as tools: `tools/list` from the
 * manifest, `tools/call` through the gateway's invoke path.
 */
export function createMcpServer(
  gateway: Gateway,
  settings: CallSettings,
  hooks: ServerHooks,
): Server {
  const { manifest } = gateway;
  const tools = actionTools(manifest);
  const known = new Set(tools.map((tool) => tool.name));
  const server = new Server(
    { name: manifest.gateway.id, title: manifest.gateway.name, version: manifest.version },
    {
      capabilities: { tools: { listChanged: false } },
      ...(manifest.agent.description ? { instructions: manifest.agent.description } : {}),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: input = {} } = request.params;
      if (!known.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const client = server.getClientVersion();
      const progressToken = extra._meta?.progressToken;
      const idempotencyKey = request.params._meta?.[IDEMPOTENCY_KEY];
      let progress = 0;
      hooks.onCallStart?.();
      try {
        return await callAction(gateway, settings, {
          actionId: name,
          input,
          caller: hooks.callerOf(extra),
          sessionId: extra.sessionId ?? 'mcp-stdio',
          ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}),
          context: {
            via: 'mcp',
            ...(client
              ? { mcpClient: { name: clip(client.name), version: clip(client.version) } }
              : {}),
          },
          signal: extra.signal,
          ...(progressToken !== undefined
            ? {
                onProgress: (message: string) => {
                  progress += 1;
                  void extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: { progressToken, progress, message },
                    })
                    .catch(() => {});
                },
              }
            : {}),
        });
      } finally {
        hooks.onCallEnd?.();
      }
    },
  );
  return server;
}
