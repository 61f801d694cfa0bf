import { gatewayProcesses } from '@svc/gateway-processes';

export type { GatewayProcess } from '@svc/gateway-processes';
export { eventually } from '@svc/gateway-processes';

/** The fixture's token. */
export const TOKEN = 'test-token';

/**
 * Gateway processes of test/fixtures/gateway-process.ts sharing one database: give
 * `DATABASE_URL` and `SCHEMA`, e.g. `startGateway({ DATABASE_URL: postgres.url, SCHEMA: 's1' })`.
 */
export const { startGateway, stopAllGateways, call, invoke } = gatewayProcesses(
  new URL('./fixtures/gateway-process.ts', import.meta.url),
  TOKEN,
);
