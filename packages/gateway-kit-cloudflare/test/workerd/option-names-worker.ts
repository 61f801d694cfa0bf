// createGatewayWorker called as JavaScript would call it, with options a test gives at bundling
// time (unknown names included): `WORKER_OPTIONS` are spread into createGatewayWorker's options at
// the module's top level, `GATEWAY_OPTIONS` into what `gateway(env)` returns, in each object.
// `GATEWAY_PROVIDED` names options of createGateway the object provides itself: `gateway(env)`
// returns them too, with working values (no JSON holds a store or a function). `ENTRY` is the
// entry the Worker is built on: `createGatewayWorker`, or `gatewayObject` (the Durable Object class
// alone, with `WORKER_OPTIONS` as its settings) behind a Worker of its own that forwards every
// request to one object.
import { defineAction, MemoryJobStore, MemoryRecordStore } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace, gatewayObject } from '../../src/index.ts';

declare const WORKER_OPTIONS: object;
declare const GATEWAY_OPTIONS: object;
declare const GATEWAY_PROVIDED: readonly ('jobStore' | 'recordStore' | 'waitUntil' | 'now')[];
declare const ENTRY: 'createGatewayWorker' | 'gatewayObject';

interface Env {
  readonly GATEWAY: GatewayNamespace;
}

const echo = defineAction({
  id: 'echo',
  description: 'Echoes its text.',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }) => ({ outputText: text }),
});

/** Made in each object (a store at the module's top level would set no timer in workerd). */
const provided = {
  jobStore: () => new MemoryJobStore(),
  recordStore: () => new MemoryRecordStore(),
  waitUntil: () => (_work: Promise<unknown>) => {},
  now: () => () => Date.now() + 60 * 60 * 1000,
};

const gateway = () => ({
  gateway: { id: 'names', name: 'Names' },
  actions: [echo],
  auth: { tokens: ['names-token-0123456789'] },
  ...GATEWAY_OPTIONS,
  ...Object.fromEntries(GATEWAY_PROVIDED.map((name) => [name, provided[name]()])),
});

const worker =
  ENTRY === 'gatewayObject'
    ? {
        GatewayObject: gatewayObject<Env>({ gateway, ...WORKER_OPTIONS }),
        fetch: (request: Request, env: Env) =>
          env.GATEWAY.get(env.GATEWAY.idFromName('names')).fetch(request),
      }
    : createGatewayWorker<Env>({ gateway, namespace: (env) => env.GATEWAY, ...WORKER_OPTIONS });

export const GatewayObject = worker.GatewayObject;
export default { fetch: worker.fetch };
