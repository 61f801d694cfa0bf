/**
 * Where the gateway writes what it does and what went wrong: one message and a flat object of
 * fields per line. Only `error` is required; `warn`, `info` and `debug` are used when present, so
 * `console`, a pino logger (see the example), or any object with these
 * methods fits. Fields carry ids (invocation, action, job, approval, webhook), statuses and
 * errors; never tokens, callback credentials, request bodies or action inputs.
 *
 * Levels: `error` — a failure the caller could not see (a crashing action, a store refusing a
 * result); `warn` — degraded but handled (a callback not delivered, a hook that threw);
 * `info` — rare lifecycle notes; `debug` — routing decisions (which route, which action, sync,
 * job or approval), one or two lines per request: leave `debug` out (or filter it) in production.
 *
 * @example
 * import pino from 'pino';
 * const log = pino();
 * const logger: GatewayLogger = {
 *   error: (message, fields) => log.error(fields, message),
 *   warn: (message, fields) => log.warn(fields, message),
 *   info: (message, fields) => log.info(fields, message),
 *   debug: (message, fields) => log.debug(fields, message),
 * };
 */
export interface GatewayLogger {
  /** A failure the caller could not see. Required. */
  error(message: string, fields?: Record<string, unknown>): void;
  /** Degraded but handled; without it, most warnings are written with `error`. */
  warn?(message: string, fields?: Record<string, unknown>): void;
  /** Rare lifecycle notes; not written without it. */
  info?(message: string, fields?: Record<string, unknown>): void;
  /** Routing decisions, one or two lines per request; not written without it. */
  debug?(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The default logger: problems (`error`, `warn`) as one line on the console; no `info` or
 * `debug`, so routing decisions cost nothing unless a logger that wants them is configured.
 *
 * @example
 * createGateway({ ...options, logger: consoleLogger }); // the default
 */
export const consoleLogger: GatewayLogger = {
  error: (message, fields) => console.error(`[gateway-kit] ${message}`, fields ?? ''),
  warn: (message, fields) => console.warn(`[gateway-kit] ${message}`, fields ?? ''),
};

/**
 * Writes a warning with `logger.warn`, or with `logger.error` where there is no `warn`, as a method
 * call: a class-based logger (pino) keeps its `this`. Internal.
 *
 * @example
 * logWarning(logger, 'hook failed', { hook: 'onInvoke' });
 */
export function logWarning(
  logger: GatewayLogger,
  message: string,
  fields?: Record<string, unknown>,
): void {
  if (logger.warn) logger.warn(message, fields);
  else logger.error(message, fields);
}
