import { describeKind } from '../runtime/config-refusal.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';

/**
 * Thrown synchronously when callback delivery is misconfigured by the code using this SDK (an
 * invalid signing secret, a body that is not JSON-serialisable, an out-of-range retry option, an
 * unparseable `allowHosts` entry). Delivery failures are never thrown; they are results.
 * Messages read `<option> is <kind>: expected …`, as every option error of the package does: they
 * name the option and the kind of value (`a string`, `the number 0`), never a string's content (nor
 * a signing secret's number), so they are safe to log.
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

  /** `detail` follows the option's name: `new CallbackConfigError('maxAttempts', 'is …')`. */
  constructor(option: string, detail: string) {
    super(`${option} ${detail}`);
    this.option = option;
  }
}

/**
 * Throws the {@link CallbackConfigError} `<option> is <kind>: <expected>` (see `describeKind`:
 * the kind of value, never a string's content; nor a number, when `hidden`: the signing secret).
 *
 * @example
 * refuseCallbackOption('maxAttempts', 0, 'expected a positive integer.');
 * // CallbackConfigError: maxAttempts is the number 0: expected a positive integer.
 */
export function refuseCallbackOption(
  option: string,
  value: unknown,
  expected: string,
  hidden = false,
): never {
  throw new CallbackConfigError(option, `is ${describeKind(value, hidden)}: ${expected}`);
}
