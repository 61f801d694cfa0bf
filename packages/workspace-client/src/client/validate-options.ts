import { WorkspaceConfigError } from '../errors/config-error.ts';

/** Longest timer the runtimes accept (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Checks a timeout option: `undefined`, `false`, or a whole number of ms from 1 to
 * `MAX_TIMEOUT_MS`. `'abc'` or `-5` would otherwise become 1 ms timers.
 */
export function checkTimeout(name: string, value: unknown): void {
  if (value === undefined || value === false) return;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_TIMEOUT_MS) {
    throw new WorkspaceConfigError(
      `${name} must be false or a whole number of ms from 1 to ${MAX_TIMEOUT_MS}`,
    );
  }
}

/** Checks that an optional callback option is a function. */
export function checkFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new WorkspaceConfigError(`${name} must be a function`);
  }
}

/** Checks a `headers` option: a plain object of string values. */
export function checkHeaders(name: string, value: unknown): void {
  if (value === undefined) return;
  if (
    value === null ||
    typeof value !== 'object' ||
    Object.values(value).some((item) => typeof item !== 'string')
  ) {
    throw new WorkspaceConfigError(`${name} must be an object of string values`);
  }
}
