import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from '@svc/gateway-kit';
import { type ActionCall, type CallLog, callAction } from './calls/call-action.ts';
import type { Caller } from './calls/gateway-request.ts';
import type { CallSettings } from './options.ts';
import { followMs, grantedTtl, keptTaskResult } from './tasks/task-budgets.ts';
import { SessionTaskStore } from './tasks/task-store.ts';
import { actionTools } from './tools/action-tools.ts';

/** What the MCP SDK hands a request handler. */
export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How the server learns who calls, and counts the calls in flight (for idle sessions). */
export interface ServerHooks {
  /** The caller of one request: from its HTTP headers, or the configured token on stdio. */
  readonly callerOf: (extra: HandlerExtra) => Caller;
  /** Around each tool call and each task's work (the HTTP handler keeps a busy session alive). */
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

/** Tasks one session keeps at once (running, or finished and within their TTL). */
const MAX_TASKS_PER_SESSION = 32;

/** Longest client name or version copied into the invoke request's `context`. */
const MAX_CLIENT_FIELD = 200;

const clip = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value.slice(0, MAX_CLIENT_FIELD);

/** MCP log levels, least severe first (RFC 5424 severities, as the MCP logging utility names them). */
const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** The `logger` name of the bridge's `notifications/message`. */
export const LOGGER_NAME = 'gateway';

/**
 * An MCP server (the SDK's `Server`) offering the gateway's actions as tools: `tools/list` from the
 * manifest, `tools/call` through the gateway's invoke path, as a plain call or as an MCP task.
 */
export function createMcpServer(
  gateway: Gateway,
  settings: CallSettings,
  hooks: ServerHooks,
): Server {
  const { manifest } = gateway;
  const tools = actionTools(manifest);
  const known = new Set(tools.map((tool) => tool.name));
  const taskCapable = new Set(
    tools.filter((tool) => tool.execution?.taskSupport !== 'forbidden').map((tool) => tool.name),
  );
  const taskStore = new SessionTaskStore();
  const server = new Server(
    { name: manifest.gateway.id, title: manifest.gateway.name, version: manifest.version },
    {
      capabilities: {
        tools: { listChanged: false },
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore,
      ...(manifest.agent.description ? { instructions: manifest.agent.description } : {}),
    },
  );
  server.onclose = () => taskStore.close();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  // One server per session: its level is the session's (`info` until the client sets one).
  let minimum = LEVELS.indexOf('info');
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    minimum = LEVELS.indexOf(request.params.level);
    return {};
  });
  /**
   * What the bridge learns about one of the caller's own calls (progress, refusals, waits), as
   * `notifications/message` on the call's stream, at or above the session's level. Only ids,
   * codes and the gateway's messages: never the call's input, context or credentials.
   */
  const logFor =
    (extra: HandlerExtra): CallLog =>
    (level, data) => {
      if (LEVELS.indexOf(level) < minimum) return;
      void extra
        .sendNotification({
          method: 'notifications/message',
          params: { level, logger: LOGGER_NAME, data },
        })
        .catch(() => {});
    };
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
      const { name, arguments: input = {} } = request.params;
      if (!known.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const client = server.getClientVersion();
      const idempotencyKey = request.params._meta?.[IDEMPOTENCY_KEY];
      const call = (signal: AbortSignal, onProgress?: (message: string) => void): ActionCall => ({
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
        signal,
        log: logFor(extra),
        ...(onProgress ? { onProgress } : {}),
      });

      const taskRequest = request.params.task;
      if (taskRequest && !taskCapable.has(name)) {
        // What the specification asks of a task-augmented call to a `forbidden` tool.
        throw new McpError(
          ErrorCode.MethodNotFound,
          `Tool ${name} does not run as a task (execution.taskSupport is "forbidden"): call it without a task.`,
        );
      }
      if (taskRequest && extra.taskStore) {
        // A task-augmented call: answer the task at once and follow the job (or approval) in the
        // background until shortly before the task's TTL (so that the result, the job still
        // running included, is stored before the task store drops the task); tasks/cancel or the
        // session closing cancels it.
        if (taskStore.size >= MAX_TASKS_PER_SESSION) {
          throw new McpError(
            ErrorCode.InvalidRequest,
            `At most ${MAX_TASKS_PER_SESSION} tasks per session; wait for one to expire.`,
          );
        }
        const ttl = grantedTtl(taskRequest.ttl, settings.taskTtlMs);
        const tasks = extra.taskStore;
        const task = await tasks.createTask({ ttl, pollInterval: settings.pollIntervalMs });
        const tracked = taskStore.track(task.taskId);
        const onProgress = (message: string): void => {
          void tasks.updateTaskStatus(task.taskId, 'working', message).catch(() => {});
        };
        // A running task is a call in flight: its session is not closed as idle meanwhile.
        hooks.onCallStart?.();
        void callAction(
          gateway,
          { ...settings, waitMs: followMs(ttl) },
          call(tracked.signal, onProgress),
        )
          .then((result) => {
            const kept = keptTaskResult(taskStore, task.taskId, result, settings.basePath);
            return tasks.storeTaskResult(task.taskId, kept.isError ? 'failed' : 'completed', kept);
          })
          // A task cancelled (or dropped with its session) meanwhile keeps its final status.
          .catch(() => {})
          .finally(() => {
            tracked.done();
            hooks.onCallEnd?.();
          });
        return { task };
      }

      const progressToken = extra._meta?.progressToken;
      let progress = 0;
      const onProgress =
        progressToken === undefined
          ? undefined
          : (message: string): void => {
              progress += 1;
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress, message },
                })
                .catch(() => {});
            };
      hooks.onCallStart?.();
      try {
        return await callAction(gateway, settings, call(extra.signal, onProgress));
      } finally {
        hooks.onCallEnd?.();
      }
    },
  );
  return server;
}
