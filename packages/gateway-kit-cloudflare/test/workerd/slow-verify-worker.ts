// createGatewayWorker with an `auth.verify` that does not answer for one token (an identity
// provider that hangs): the Worker, which verifies to route, must give up as the gateway does.
import { defineAction } from '@svc/gateway-kit';
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

const worker = createGatewayWorker<Env>({
  gateway: () => ({
    gateway: { id: 'slow-verify', name: 'Slow verify' },
    actions: [echo],
    auth: {
      verify: async (token) => {
        // Pending I/O (a timer) that outlives any budget, as a fetch that never answers would.
        if (token === 'token-hangs') await new Promise((resolve) => setTimeout(resolve, 600_000));
        return token === 'token-ok' || token === 'token-hangs' ? { id: 'caller' } : null;
      },
    },
  }),
  namespace: (env) => env.GATEWAY,
});

export const GatewayObject = worker.GatewayObject;
export default { fetch: worker.fetch };
