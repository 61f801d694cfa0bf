/**
 * Whether `error` is a store's "temporarily unreachable" error (`StoreUnavailableError` of
 * `@svc/gateway-kit-redis`, or any adapter's error of that name, from any copy of any package):
 * the call may succeed if tried again later.
 *
 * @example
 * if (isStoreUnavailable(error)) return errorReply('unavailable');
 */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && error.name === 'StoreUnavailableError';
}
