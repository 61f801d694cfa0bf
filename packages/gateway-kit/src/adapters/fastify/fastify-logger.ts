import type { FastifyBaseLogger } from 'fastify';
import type { GatewayLogger } from '../../runtime/logger.ts';

/**
 * The gateway's logger on top of Fastify's (pino): each line becomes `log.level(fields, message)`,
 * with an `error` field passed as pino's `err` so its message and stack are serialised.
 *
 * @example
 * const app = Fastify({ logger: true });
 * const gateway = createGateway({ ...options, logger: fastifyLogger(app.log) });
 */
export function fastifyLogger(log: FastifyBaseLogger): GatewayLogger {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (fields === undefined) {
        log[level](message);
        return;
      }
      if ('error' in fields) {
        const { error, ...rest } = fields;
        log[level]({ ...rest, err: error }, message);
      } else log[level](fields, message);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}
