// createGatewayWorker called as JavaScript would call it, with options a test gives at bundling
// time (unknown names included): `WORKER_OPTIONS` are spread into createGatewayWorker's options at
// the module's top level, `GATEWAY_OPTIONS` into what `gateway(env)` returns, in each object.
import { defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

declare const WORKER_OPTIONS: object;
declare const GATEWAY_OPTIONS: object;

interface Env {
  readonly GATEWAY: GatewayNamespace;
}

const echo = defineAction({
  id: 'echo',
  description: 'Echoes its text.',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }) => ({ outputText: text }),
});

const worker = createGatewayWorker<Env>({
  gateway: () => ({
    gateway: { id: 'names', name: 'Names' },
    actions: [echo],
    auth: { tokens: ['names-token-0123456789'] },
    ...GATEWAY_OPTIONS,
  }),
  namespace: (env) => env.GATEWAY,
  ...WORKER_OPTIONS,
});

export const GatewayObject = worker.GatewayObject;
export default { fetch: worker.fetch };
