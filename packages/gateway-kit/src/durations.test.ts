import { expect, it } from 'vitest';
import { lookupAccount } from '../test/fixture-gateway.ts';
import { serve } from './adapters/node/serve.ts';
import { toNodeHandler } from './adapters/node/to-node-handler.ts';
import { CallbackDispatcher } from './callbacks/callback-dispatcher.ts';
import { deliverCallback } from './callbacks/deliver-callback.ts';
import { createGateway } from './gateway/create-gateway.ts';
import { isGatewayKitError } from './runtime/gateway-kit-error.ts';
import { MAX_TIMER_MS } from './runtime/limits.ts';
import { MemoryJobStore } from './store/memory-job-store.ts';

// One meaning for a duration a timer waits for (docs/decisions.md, "Durations a timer waits
// for"): at most 2^31-1 ms. A longer timer fires at once (Node warns and uses 1 ms), so a week
// of backoff would become a retry storm and a long sweep interval a sweep on every tick.
const base = {
  gateway: { id: 'g', name: 'G' },
  actions: [lookupAccount],
  auth: { tokens: ['t0ken'] },
  logger: { error: () => {}, warn: () => {} },
};
const gateway = createGateway(base);
const delivery = { url: 'https://example.com/hook', body: { ok: true }, webhookId: 'msg_1' };

type Create = (value: unknown) => unknown;
const DURATIONS: [string, Create][] = [
  ...['attemptTimeoutMs', 'baseDelayMs', 'maxDelayMs', 'circuitCooldownMs'].map(
    (name): [string, Create] => [name, (value) => new CallbackDispatcher({ [name]: value })],
  ),
  ...['attemptTimeoutMs', 'baseDelayMs', 'maxDelayMs'].map((name): [string, Create] => [
    `callbacks.${name}`,
    (value) => createGateway({ ...base, callbacks: { [name]: value } }),
  ]),
  ['attemptTimeoutMs', (value) => deliverCallback({ ...delivery, attemptTimeoutMs: value as 1 })],
  [
    'createGateway: idempotencyTtlMs',
    (value) => createGateway({ ...base, idempotencyTtlMs: value as 1 }),
  ],
  [
    'createGateway: approvals.ttlMs',
    (value) => createGateway({ ...base, approvals: { ttlMs: value as 1 } }),
  ],
  [
    'new MemoryJobStore: sweepIntervalMs',
    (value) => new MemoryJobStore({ sweepIntervalMs: value as 1 }),
  ],
  [
    'toNodeHandler: drainTimeoutMs',
    (value) => toNodeHandler(gateway, { drainTimeoutMs: value as 1 }),
  ],
  ...['requestTimeoutMs', 'headersTimeoutMs', 'keepAliveTimeoutMs', 'drainTimeoutMs'].map(
    (name): [string, Create] => [
      `serve: ${name}`,
      (value) => serve(gateway, { port: 0, [name]: value }),
    ],
  ),
];

async function thrownBy(create: Create, value: unknown): Promise<unknown> {
  try {
    const created = create(value);
    await created;
    if (created instanceof MemoryJobStore) await created.close();
    if (created instanceof CallbackDispatcher) await created.close();
  } catch (error) {
    return error;
  }
  return undefined;
}

it.each(
  DURATIONS.flatMap(([option, create]) =>
    [-1, Number.NaN, Number.POSITIVE_INFINITY, MAX_TIMER_MS + 1, 2 ** 53, '1000'].map(
      (value) => [option, value, create] as const,
    ),
  ),
)('%s = %j is a config error naming the option', async (option, value, create) => {
  const thrown = await thrownBy(create, value);
  expect(isGatewayKitError(thrown), `${option} accepted ${value}`).toBe(true);
  // The one style of every option error: `<factory>: <option> is <kind>: expected ….`
  expect((thrown as Error).message).toMatch(
    new RegExp(`(^|: )${option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is .+: expected .+\\.$`),
  );
});

it.each(
  DURATIONS.filter(([option]) => !option.startsWith('serve') && option !== 'attemptTimeoutMs'),
)('%s takes the longest timer', async (_option, create) => {
  const created = create(MAX_TIMER_MS);
  if (created instanceof MemoryJobStore || created instanceof CallbackDispatcher)
    await created.close();
  else if (created && typeof (created as { close?: unknown }).close === 'function')
    await (created as { close(): Promise<void> }).close();
});

it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '8'])(
  'callbacks maxAttempts = %j is a config error naming it (a count of retries, a safe integer)',
  async (value) => {
    const thrown = await thrownBy(
      (maxAttempts) => new CallbackDispatcher({ maxAttempts: maxAttempts as 1 }),
      value,
    );
    expect(isGatewayKitError(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/^maxAttempts is .+: expected a positive integer\.$/);
  },
);
