// A gateway worker for the alarm tests: short approval TTL and watch interval from bindings,
// loopback callbacks allowed (the test's receiver), nothing else.
import { defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

interface Env {
  readonly GATEWAY: GatewayNamespace;
  readonly APPROVAL_TTL_MS: string;
}

const report = defineAction({
  id: 'report',
  description: 'A report, as a job.',
  input: v.strictObject({ topic: v.string() }),
  executionMode: 'async',
  idempotent: true,
  run: ({ topic }) => ({ outputText: `Report on ${topic}.` }),
});

const refund = defineAction({
  id: 'refund',
  description: 'A refund, after an approval.',
  input: v.strictObject({ cents: v.number() }),
  requiresApproval: true,
  run: ({ cents }) => ({ outputText: `Refunded ${cents}.` }),
});

const worker = createGatewayWorker<Env>({
  gateway: (env) => ({
    gateway: { id: 'alarms', name: 'Alarms' },
    actions: [report, refund],
    auth: { tokens: ['alarm-token'] },
    approvals: { ttlMs: Number(env.APPROVAL_TTL_MS) },
    // Retries 500 ms apart (no jitter); an attempt lasts at most 1 s.
    callbacks: {
      urlPolicy: { allowInsecureLoopback: true },
      baseDelayMs: 500,
      maxDelayMs: 500,
      random: () => 1,
      attemptTimeoutMs: 1_000,
    },
  }),
  namespace: (env) => env.GATEWAY,
  watchIntervalMs: 1_000,
  // A claim held by a runtime that stopped mid-attempt is due again after 3 s.
  stores: { outbox: { leaseMs: 3_000 } },
});

export const GatewayObject = worker.GatewayObject;
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    // The operators' sweep over the one shard the token's principal lives in.
    if (new URL(request.url).pathname === '/_sweep') {
      const shard = await worker.shardOfPrincipal('default');
      return Response.json(await worker.approvals(env, [shard]).sweep());
    }
    return worker.fetch(request, env);
  },
};
