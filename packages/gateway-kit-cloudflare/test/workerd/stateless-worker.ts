// The core in a plain Worker, created at module scope as createGateway's own example shows (timers
// are refused there by workerd): no Durable Object, in-memory stores, waitUntil for background work.
import { createGateway, defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';

const echo = defineAction({
  id: 'echo',
  title: 'Echo',
  description: 'Answers with its input.',
  input: v.strictObject({ text: v.string() }),
  sideEffectLevel: 'read',
  idempotent: true,
  run: ({ text }) => ({ outputText: text }),
});

const slowEcho = defineAction({
  id: 'slow-echo',
  title: 'Slow echo',
  description: 'Answers with its input after a pause, as a job.',
  input: v.strictObject({ text: v.string() }),
  sideEffectLevel: 'read',
  idempotent: true,
  executionMode: 'async',
  run: async ({ text }) => {
    // A job that takes time: still running after the response, kept alive by waitUntil.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { outputText: text };
  },
});

const guarded = defineAction({
  id: 'guarded',
  title: 'Guarded',
  description: 'Needs an approval.',
  input: v.strictObject({ text: v.string() }),
  sideEffectLevel: 'write',
  idempotent: false,
  requiresApproval: true,
  run: ({ text }) => ({ outputText: text }),
});

const gateway = createGateway({
  gateway: { id: 'plain', name: 'Plain Worker' },
  actions: [echo, slowEcho, guarded],
  auth: { tokens: ['plain-token'] },
});

export default { fetch: gateway.fetch };
