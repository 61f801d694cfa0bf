import type { GatewayError } from '../contract/gateway-error.ts';

/** What a business refusal says. `retryable` defaults to `false`. */
export interface RejectionInit {
  readonly code: string;
  readonly message: string;
  readonly retryable?: boolean;
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
  override readonly name = 'ActionRejection';
  /** The Gateway error sent to the caller. */
  readonly error: GatewayError;

  constructor(init: RejectionInit) {
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
