import type { Refuse } from '@svc/gateway-kit/store';

/** The longest wait `setTimeout` / `setInterval` holds (≈ 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Checks a duration a timer waits for: a positive integer of ms up to {@link MAX_TIMER_MS}, or
 * with `orOff` also `0` (the timer is off). Refuses anything else with the factory's
 * `GatewayConfigError`.
 *
 * @example
 * timerMs(refusalFor('new XStore'), 'sweepIntervalMs', options.sweepIntervalMs ?? 5_000, true);
 */
export function timerMs(refuse: Refuse, name: string, value: number, orOff = false): number {
  if (orOff && value === 0) return value;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_TIMER_MS)
    refuse(
      name,
      value,
      `expected ${orOff ? '0 (off) or ' : ''}a positive integer of milliseconds up to ${MAX_TIMER_MS}.`,
    );
  return value;
}
