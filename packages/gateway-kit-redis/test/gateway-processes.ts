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
