export {
  demoActions,
  generateReport,
  issueRefund,
  lookupAccount,
  REFUND_LIMIT_CENTS,
  REPORT_DELAY_MS,
} from './actions.ts';
export type { DemoConfig, DemoEnv, DemoGateway, DemoGatewayOptions } from './demo-gateway.ts';
export {
  createDemoGateway,
  DEV_GATEWAY_TOKEN,
  DEV_OPERATOR_TOKEN,
  extraCallerId,
  isLoopbackHost,
  readDemoConfig,
  startupMessage,
} from './demo-gateway.ts';
