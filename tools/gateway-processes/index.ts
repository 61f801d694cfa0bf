export type { CallbackReceiver, ReceivedCallback, ReceiverMode } from './callback-receiver.ts';
export { startReceiver } from './callback-receiver.ts';
export type { GatewayCall, GatewayProcess, GatewayProcesses } from './gateway-processes.ts';
export { eventually, gatewayProcesses } from './gateway-processes.ts';
