// createGatewayWorker with a custom shardKey (one object per tenant, from an `x-tenant` header),
// as docs/cloudflare.md "Routing" shows it. `/_routed` answers the objects requests were sent to,
// `/_shardKey` what shardKey was called with.
import { defineAction, type Principal } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

interface Env {
  readonly GATEWAY: GatewayNamespace;
}

const echo = defineAction({
  id: 'echo',
  description: 'Echoes its text.',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }) => ({ outputText: text }),
});

const routed: string[] = [];
const shardKeyCalls: (string | null)[] = [];
const worker = createGatewayWorker<Env>({
  gateway: () => ({
    gateway: { id: 'tenants', name: 'Tenants' },
    actions: [echo],
    auth: {
      tokens: [
        { token: 'token-alice', principal: { id: 'alice' } },
        { token: 'token-bob', principal: { id: 'bob' } },
      ],
    },
  }),
  namespace: (env) => ({
    idFromName: (name) => {
      routed.push(name);
      return env.GATEWAY.idFromName(name);
    },
    get: (id) => env.GATEWAY.get(id),
  }),
  // The principal is optional here only so that a router that calls shardKey without one (as
  // it once did, for every request) shows in `/_shardKey` instead of failing.
  shardKey: (request: Request, _env: Env, principal?: Principal) => {
    shardKeyCalls.push(principal?.id ?? null);
    return `tenant:${request.headers.get('x-tenant') ?? 'none'}`;
  },
});

export const GatewayObject = worker.GatewayObject;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === '/_routed') return Response.json(routed.splice(0));
    if (path === '/_shardKey') return Response.json(shardKeyCalls.splice(0));
    return worker.fetch(request, env);
  },
};
