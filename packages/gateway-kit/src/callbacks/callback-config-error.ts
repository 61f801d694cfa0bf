import { GatewayConfigError } from '../runtime/gateway-config-error.ts';

/**
 * Thrown synchronously when callback delivery is misconfigured by the code using this SDK (an
 * invalid signing secret, a body that is not JSON-serialisable, an out-of-range retry option, an
 * unparseable `allowHosts` entry). Delivery failures are never thrown; they are results.
 * Messages name the offending option, never its value, so they are safe to log.
 *
 * @example
 * try {
 *   deliverCallback({ url, body, webhookId, signingSecret: 'not base64!' });
 * } catch (error) {
 *   if (error instanceof CallbackConfigError) console.error(error.option, error.message);
 * }
 */
export class CallbackConfigError extends GatewayConfigError {
  override readonly name: string = 'CallbackConfigError';
  /** The option that is wrong, e.g. `signingSecret`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(`${option}: ${message}`);
    this.option = option;
  }
}
