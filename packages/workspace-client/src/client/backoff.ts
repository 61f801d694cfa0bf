/**
 * Exponential backoff: `baseDelayMs × 2^(attempt-1)`, randomised by ±25 % when `jitter`
 * is on, then capped at `maxDelayMs`. `attempt` starts at 1.
 */
export function backoffDelay(
  attempt: number,
  policy: { baseDelayMs: number; maxDelayMs: number; jitter: boolean },
  random: () => number = Math.random,
): number {
  const raw = policy.baseDelayMs * 2 ** (attempt - 1);
  const jittered = policy.jitter ? raw * (0.75 + random() * 0.5) : raw;
  return Math.round(Math.min(policy.maxDelayMs, jittered));
}
