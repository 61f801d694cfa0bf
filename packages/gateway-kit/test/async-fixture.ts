import * as v from 'valibot';
import { createGateway, defineAction, type GatewayOptions, reject } from '../src/index.ts';

export const TOKEN = 'test-token-primary';
export const OTHER_TOKEN = 'test-token-other-caller';
// A Standard Webhooks secret made for tests only.
export const SIGNING_SECRET = `whsec_${btoa('test-signing-secret-32-bytes-long!!')}`;

/** Counters and hooks the tests read. */
export const probe = {
  runs: 0,
  aborted: 0,
  release: undefined as (() => void) | undefined,
  /** While set, `count-calls` runs until it settles (a test holds the run open); else 20 ms. */
  hold: undefined as Promise<void> | undefined,
};

export const generateReport = defineAction({
  id: 'generate-report',
  title: 'Generate a report',
  executionMode: 'async',
  sideEffectLevel: 'write',
  idempotent: true,
  timeoutMs: 2_000,
  input: v.strictObject({
    topic: v.string(),
    mode: v.optional(
      v.picklist(['fast', 'wait', 'ignore-abort', 'throw', 'reject', 'hang']),
      'fast',
    ),
  }),
  run: async ({ topic, mode }, { signal, job }) => {
    probe.runs += 1;
    signal.addEventListener('abort', () => {
      probe.aborted += 1;
    });
    await job?.progress({ outputText: `Working on ${topic}…` });
    if (mode === 'throw') throw new Error('disk full at /var/secret');
    if (mode === 'reject') return reject({ code: 'topic_banned', message: 'Not this topic.' });
    if (mode === 'wait' || mode === 'ignore-abort' || mode === 'hang') {
      await new Promise<void>((resolve) => {
        probe.release = resolve;
        if (mode === 'wait') signal.addEventListener('abort', () => resolve());
      });
    }
    return {
      outputText: `Report on ${topic} is ready.`,
      data: { topic, pages: 3 },
      dataSchemaVersion: '1',
    };
  },
});

export const issueRefund = defineAction({
  id: 'issue-refund',
  title: 'Issue a refund',
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  input: v.strictObject({
    orderId: v.string(),
    amountCents: v.pipe(v.number(), v.integer(), v.minValue(1)),
  }),
  run: async ({ orderId, amountCents }) => {
    probe.runs += 1;
    return { outputText: `Refunded ${amountCents} cents on ${orderId}.` };
  },
});

export const countCalls = defineAction({
  id: 'count-calls',
  sideEffectLevel: 'write',
  idempotent: true,
  input: v.object({ n: v.number(), crash: v.optional(v.boolean(), false) }),
  run: async ({ n, crash }) => {
    probe.runs += 1;
    // A handler that takes time, or as long as a test holds it.
    await (probe.hold ?? new Promise((resolve) => setTimeout(resolve, 20)));
    if (crash) throw new Error('transient');
    return { outputText: `counted ${n}`, data: { run: probe.runs } };
  },
});

export function asyncGateway(overrides: Partial<GatewayOptions> = {}) {
  return createGateway({
    gateway: { id: 'acme', name: 'Acme', url: 'https://gateway.acme.example' },
    version: '2026-11-01',
    actions: [generateReport, issueRefund, countCalls],
    auth: {
      tokens: [TOKEN, { token: OTHER_TOKEN, principal: { id: 'someone-else' } }],
    },
    callbacks: {
      urlPolicy: { allowInsecureLoopback: true },
      signingSecret: SIGNING_SECRET,
      baseDelayMs: 10,
    },
    logger: { error: () => {}, warn: () => {} },
    ...overrides,
  });
}
