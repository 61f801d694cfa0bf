export { type CheckGatewayOptions, checkGateway } from './check/check-gateway.ts';
export { CheckOptionsError, DEFAULT_DEADLINE_MS, DEFAULT_MAX_ACTIONS } from './check/options.ts';
export type { CheckReport, CheckResult, CheckStatus } from './check/report.ts';
export { formatCheck, formatSummary } from './cli/format-human.ts';
export { formatJUnit } from './cli/format-junit.ts';
export * from './client.ts';
export { type Generated, generate as generateInput } from './schema/generate-input.ts';
