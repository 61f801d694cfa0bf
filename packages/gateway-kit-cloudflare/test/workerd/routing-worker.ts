// createGatewayWorker with a namespace that records which object each request was routed to.
import { defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

interface Env {
  readonly GATEWAY: GatewayNamespace;
}

const report = defineAction({
  id: 'report',
  description: 'A report, as a job.',
  input: v.strictObject({ topic: v.string() }),
  executionMode: 'async',
  idempotent: true,
  run: ({ topic }) => ({ outputText: `Report on ${topic}.` }),
});

const routed: string[] = [];
const worker = createGatewayWorker<Env>({
  gateway: () => ({
    gateway: { id: 'routing', name: 'Routing' },
    actions: [report],
    auth: {
      tokens: [
        'token-default',
        { token: 'token-bob', principal: { id: 'bob' } },
        { token: 'token-bob-rotated', principal: { id: 'bob' } },
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
});

export const GatewayObject = worker.GatewayObject;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === '/_routed') return Response.json(routed.splice(0));
    if (path === '/_shard') {
      const id = new URL(request.url).searchParams.get('principal') ?? '';
      return Response.json(await worker.shardOfPrincipal(id));
    }
    return worker.fetch(request, env);
  },
};
