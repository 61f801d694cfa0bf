// createGatewayWorker configured from the Worker's bindings, as docs/cloudflare.md shows it: a
// test starts it with bindings unset or wrong, as a `wrangler dev` without `.dev.vars` would.
// `/_routed` answers the objects requests were sent to.
import { defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

interface Env {
  readonly GATEWAY: GatewayNamespace;
  readonly GATEWAY_TOKEN: string;
  readonly CALLBACK_SIGNING_SECRET: string;
  readonly WATCH_INTERVAL_MS?: string;
}

const echo = defineAction({
  id: 'echo',
  description: 'Echoes its text.',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }) => ({ outputText: text }),
});

const routed: string[] = [];
const worker = createGatewayWorker<Env>({
  gateway: (env) => ({
    gateway: { id: 'config', name: 'Config' },
    actions: [echo],
    auth: { tokens: [env.GATEWAY_TOKEN] },
    callbacks: { signingSecret: env.CALLBACK_SIGNING_SECRET },
  }),
  watchIntervalMs: (env) => Number(env.WATCH_INTERVAL_MS ?? 30_000),
  namespace: (env) => ({
    idFromName: (name) => {
      routed.push(name);
      return env.GATEWAY.idFromName(name);
    },
    get: (id) => env.GATEWAY.get(id),
  }),
});

export const GatewayObject = worker.GatewayObject;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (new URL(request.url).pathname === '/_routed') return Response.json(routed.splice(0));
    return worker.fetch(request, env);
  },
};
