// The typed client on another runtime (Deno, Bun): a real @svc/gateway-kit gateway served by the
// runtime's own server, driven through the built client. Needs `pnpm build` first.
import { createGateway, defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayClient, isGatewayClientError } from '../../dist/client.js';

export const TOKEN = 'runtime-gateway-token';

const summarize = defineAction({
  id: 'summarize',
  title: 'Summarize',
  description: 'Async: finishes after delayMs, or when cancelled.',
  input: v.strictObject({ topic: v.string(), delayMs: v.number() }),
  executionMode: 'async',
  run: ({ topic, delayMs }, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ outputText: `Summary of ${topic}.` }), delayMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }),
});

/** The gateway each runtime serves. */
export const createRuntimeGateway = () =>
  createGateway({
    gateway: { id: 'runtime', name: 'Runtime' },
    version: '2026-11-22',
    actions: [summarize],
    auth: { tokens: [TOKEN] },
  });

const check = (condition, message) => {
  if (!condition) throw new Error(message);
};

/** Named scenarios, run against a served gateway at `url`. */
export function scenarios(url) {
  const client = createGatewayClient({ url, token: TOKEN });
  return {
    'reads the manifest': async () => {
      const manifest = await client.manifest();
      check(manifest.actions[0]?.id === 'summarize', 'manifest without the action');
    },
    'drives an async job to completion': async () => {
      const outcome = await client.invoke('summarize', { topic: 'runtime', delayMs: 20 });
      check(outcome.status === 'accepted', `expected accepted, got ${outcome.status}`);
      const job = await outcome.handle.wait({ pollIntervalMs: 20, timeoutMs: 5_000 });
      check(job.status === 'completed', `expected completed, got ${job.status}`);
      check(job.outputText === 'Summary of runtime.', 'unexpected outputText');
    },
    'cancels a running job': async () => {
      const outcome = await client.invoke('summarize', { topic: 'runtime', delayMs: 60_000 });
      check(outcome.status === 'accepted', `expected accepted, got ${outcome.status}`);
      await outcome.handle.cancel();
      const job = await outcome.handle.wait({ pollIntervalMs: 20, timeoutMs: 5_000 });
      check(job.status === 'cancelled', `expected cancelled, got ${job.status}`);
    },
    'rejects a wrong token with a gateway error': async () => {
      const error = await createGatewayClient({ url, token: 'wrong' })
        .manifest()
        .catch((e) => e);
      check(isGatewayClientError(error), 'expected a GatewayClientError');
      check(error.kind === 'gateway' && error.status === 401, `got ${error.kind} ${error.status}`);
    },
  };
}
