import type { StoreUnavailableError } from './store-unavailable-error.ts';

/**
 * Whether `error` is a store's "temporarily unreachable" error: a {@link StoreUnavailableError}
 * from this or any other copy of the package (ESM and CJS builds, bundled copies, older adapters),
 * recognised by its name. The call may succeed if tried again later.
 *
 * @example
 * if (isStoreUnavailableError(error)) return new Response(null, { status: 503 });
 */
export function isStoreUnavailableError(error: unknown): error is StoreUnavailableError {
  return error instanceof Error && error.name === 'StoreUnavailableError';
}
