export { IDEMPOTENCY_KEY } from './create-mcp-server.ts';
export type { McpHandler, McpHandlerOptions } from './http/create-mcp-handler.ts';
export { createMcpHandler } from './http/create-mcp-handler.ts';
export type { LoopbackOnly } from './http/loopback-host.ts';
export { isMcpConfigError, McpConfigError } from './mcp-config-error.ts';
export type { McpCallOptions } from './options.ts';
export { actionTool, actionTools } from './tools/action-tools.ts';
