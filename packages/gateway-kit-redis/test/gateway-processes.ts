import { gatewayProcesses } from '@svc/gateway-processes';

export type { GatewayProcess } from '@svc/gateway-processes';
export { eventually } from '@svc/gateway-processes';

/** The fixture's token: principal `default`. */
export const TOKEN = 'test-token';
/** The fixture's second token: principal `other`. */
export const OTHER_TOKEN = 'other-token';

/**
 * Gateway processes of test/fixtures/gateway-process.ts sharing Redis: give `REDIS_URL` (or
 * `REDIS_CLUSTER_URLS`) and `PREFIX`, e.g. `startGateway({ REDIS_URL: redis.url, PREFIX: 'p:' })`.
 */
export const { startGateway, stopAllGateways, call, invoke } = gatewayProcesses(
  new URL('./fixtures/gateway-process.ts', import.meta.url),
  TOKEN,
);

/** Resolves with `promise`, or rejects once `ms` passed without it settling (its timer cleared). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
