import type { GatewayError } from '../contract/gateway-error.ts';

/** What a business refusal says. `retryable` defaults to `false`. */
export interface RejectionInit {
  /** Machine-readable error code sent as `error.code`, e.g. `amount_over_limit`. */
  readonly code: string;
  /** Human-readable explanation sent as `error.message`. */
  readonly message: string;
  /** Whether the caller may try the same request again later. Defaults to `false`. */
  readonly retryable?: boolean;
  /** JSON object sent as `error.details`; omitted from the error when absent. */
  readonly details?: Record<string, unknown>;
}

/**
 * A business-level refusal of an action. Return it or throw it from `run`: either way the gateway
 * answers HTTP 200 with `status: 'rejected'` and this error.
 *
 * @example
 * throw new ActionRejection({ code: 'amount_over_limit', message: 'Refunds above 500.00 need a manager.' });
 */
export class ActionRejection extends Error {
  /** Always `'ActionRejection'` (what {@link isActionRejection} looks for). */
  override readonly name = 'ActionRejection';
  /** The Gateway error sent to the caller. */
  readonly error: GatewayError;

  constructor(init: RejectionInit) {
    // A refusal is sent as a Gateway error: check its shape now, where the mistake is made.
    if (typeof init?.code !== 'string' || typeof init.message !== 'string') {
      throw new TypeError('reject() needs a string code and a string message.');
    }
    if (init.retryable !== undefined && typeof init.retryable !== 'boolean') {
      throw new TypeError('reject(): retryable must be a boolean.');
    }
    if (
      init.details !== undefined &&
      (typeof init.details !== 'object' || init.details === null || Array.isArray(init.details))
    ) {
      throw new TypeError('reject(): details must be a JSON object.');
    }
    super(init.message);
    const error: GatewayError = {
      code: init.code,
      message: init.message,
      retryable: init.retryable ?? false,
    };
    if (init.details) error.details = init.details;
    this.error = error;
  }
}

/**
 * Creates an {@link ActionRejection} to `return` (or `throw`) from an action's `run`.
 *
 * @example
 * if (amountCents > LIMIT) return reject({ code: 'amount_over_limit', message: 'Too large to refund.' });
 */
export function reject(init: RejectionInit): ActionRejection {
  return new ActionRejection(init);
}

/**
 * Whether `value` is an {@link ActionRejection} — also one made by another copy of this package
 * (its ESM and CJS builds loaded side by side), which `instanceof` would miss.
 *
 * @example
 * if (isActionRejection(error)) return error.error;
 */
export function isActionRejection(value: unknown): value is ActionRejection {
  return (
    value instanceof ActionRejection ||
    (value instanceof Error &&
      value.name === 'ActionRejection' &&
      typeof (value as { error?: { code?: unknown } }).error?.code === 'string')
  );
}
