// createGatewayWorker with an `auth.verify` that does not answer for one token (an identity
// provider that hangs): the Worker, which verifies to route, must give up as the gateway does.
import { defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

// Timers in this isolate (the Worker's and its objects') wait a hundredth of their delay: the
// gateway's 10 s budget for `verify` passes in 100 ms, so the test need not sit idle for 10 s.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((handler: () => void, ms = 0, ...rest: unknown[]) =>
  realSetTimeout(handler, ms / 100, ...rest)) as typeof setTimeout;

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
        if (token === 'token-hangs')
          await new Promise((resolve) => setTimeout(resolve, 2 ** 31 - 1));
        return token === 'token-ok' || token === 'token-hangs' ? { id: 'caller' } : null;
      },
    },
  }),
  namespace: (env) => env.GATEWAY,
});

export const GatewayObject = worker.GatewayObject;
export default { fetch: worker.fetch };
