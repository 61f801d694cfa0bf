/**
 * Where the gateway reports problems its callers cannot see (crashing handlers, invalid handler
 * results). Fields never contain tokens or callback credentials.
 *
 * @example
 * const logger: GatewayLogger = { error: (message, fields) => pino.error(fields, message) };
 */
export interface GatewayLogger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
}

/** The default logger: one line per problem on `console.error`. */
export const consoleLogger: GatewayLogger = {
  error: (message, fields) => console.error(`[gateway-kit] ${message}`, fields ?? ''),
  warn: (message, fields) => console.warn(`[gateway-kit] ${message}`, fields ?? ''),
};
