// createGatewayWorker with an `auth.verify` whose answer changes between two calls for the same
// token (an identity provider that fails once, a token that became valid a moment later): the
// Worker verifies to route, the object verifies again to serve, and the two may disagree.
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

/** Calls of `verify` per token: `token-throws-once` throws on its first, `token-late` is refused on its first. */
const calls = new Map<string, number>();
const worker = createGatewayWorker<Env>({
  gateway: () => ({
    gateway: { id: 'flaky-verify', name: 'Flaky verify' },
    actions: [report],
    auth: {
      verify: (token) => {
        const call = (calls.get(token) ?? 0) + 1;
        calls.set(token, call);
        if (token === 'token-throws-once' && call === 1)
          throw new Error('the identity provider failed');
        if (token === 'token-late' && call === 1) return null;
        return token === 'made-up' ? null : { id: token };
      },
    },
  }),
  namespace: (env) => env.GATEWAY,
});

export const GatewayObject = worker.GatewayObject;
export default { fetch: worker.fetch };
