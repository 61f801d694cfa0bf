import * as v from 'valibot';
import { createGateway, defineAction, type GatewayOptions, reject } from '../src/index.ts';

/** Tokens used across the tests. Not secrets: test-only values. */
export const TOKEN = 'test-token-primary';
export const ROTATED_TOKEN = 'test-token-next';

export const lookupAccount = defineAction({
  id: 'lookup-account',
  name: 'lookupAccount',
  title: 'Look up an account',
  description: 'Finds a customer account by id.',
  input: v.strictObject({ accountId: v.pipe(v.string(), v.minLength(1)) }),
  sideEffectLevel: 'read',
  idempotent: true,
  run: ({ accountId }) => {
    if (accountId === 'closed') {
      return reject({
        code: 'account_closed',
        message: 'The account is closed.',
        details: { since: '2024' },
      });
    }
    return {
      outputText: `Account ${accountId} is active.`,
      data: { accountId, plan: 'pro' },
      dataSchemaVersion: '1',
    };
  },
});

/** An action whose behaviour the test chooses through its input. */
export const misbehave = defineAction({
  id: 'misbehave',
  input: v.object({
    mode: v.picklist(['throw', 'throw-rejection', 'bad-result', 'slow', 'void', 'bigint']),
  }),
  sideEffectLevel: 'write',
  timeoutMs: 200,
  run: async ({ mode }, { signal }) => {
    switch (mode) {
      case 'throw':
        throw new Error('database password is hunter2');
      case 'throw-rejection':
        throw reject({ code: 'not_today', message: 'Try tomorrow.', retryable: true });
      case 'bad-result':
        return { outputText: 42 } as never;
      case 'bigint':
        return { data: { n: 1n } } as never;
      case 'slow':
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return { outputText: 'too late' };
      case 'void':
        return undefined as never;
    }
  },
});

export function fixtureGateway(overrides: Partial<GatewayOptions> = {}) {
  return createGateway({
    gateway: { id: 'acme', name: 'Acme back office', url: 'https://gateway.acme.example' },
    agent: { id: 'acme-agent', name: 'Acme agent', description: 'Back-office helper.' },
    version: '2026-11-01',
    actions: [lookupAccount, misbehave],
    auth: { tokens: [TOKEN, ROTATED_TOKEN] },
    logger: { error: () => {} },
    ...overrides,
  });
}
