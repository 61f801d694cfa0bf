import { expect, it } from 'vitest';
import { lookupAccount } from '../test/fixture-gateway.ts';
import { serve } from './adapters/node/serve.ts';
import { CallbackDispatcher } from './callbacks/callback-dispatcher.ts';
import { createApprovalsHandler } from './gateway/approvals-handler.ts';
import { createGateway } from './gateway/create-gateway.ts';
import { MemoryRecordStore } from './records/memory-record-store.ts';
import { isGatewayKitError } from './runtime/gateway-kit-error.ts';
import { DEFAULT_LIMITS, DEFAULT_QUOTAS } from './runtime/limits.ts';
import { MemoryJobStore } from './store/memory-job-store.ts';

// One meaning for a cap (docs/decisions.md, "A cap of 0"): every cap on what callers make the
// gateway keep is a positive integer; 0 never means "unbounded", and neither does Infinity.
const base = {
  gateway: { id: 'g', name: 'G' },
  actions: [lookupAccount],
  auth: { tokens: ['t0ken'] },
  logger: { error: () => {}, warn: () => {} },
};
const gateway = createGateway(base);
const CAPS: [string, (value: number) => unknown][] = [
  ...Object.keys(DEFAULT_LIMITS).map((name): [string, (value: number) => unknown] => [
    `createGateway: limits.${name}`,
    (value) => createGateway({ ...base, limits: { [name]: value } }),
  ]),
  ...Object.keys(DEFAULT_QUOTAS).map((name): [string, (value: number) => unknown] => [
    `createGateway: quotas.${name}`,
    (value) => createGateway({ ...base, quotas: { [name]: value } }),
  ]),
  ['createGateway: maxBodyBytes', (value) => createGateway({ ...base, maxBodyBytes: value })],
  [
    'createApprovalsHandler: maxBodyBytes',
    (value) => createApprovalsHandler(gateway, { auth: base.auth, maxBodyBytes: value }),
  ],
  // Rejects (serve returns a promise) before anything listens; Node would read 0 as "refuse
  // every connection" and NaN or Infinity as no limit.
  ['serve: maxConnections', (value) => serve(gateway, { port: 0, maxConnections: value })],
  ['new MemoryJobStore: maxJobs', (value) => new MemoryJobStore({ maxJobs: value })],
  ['new MemoryJobStore: maxBytes', (value) => new MemoryJobStore({ maxBytes: value })],
  [
    'new MemoryJobStore: maxFinishedPerOwner',
    (value) => new MemoryJobStore({ maxFinishedPerOwner: value }),
  ],
  ['new MemoryRecordStore: maxRecords', (value) => new MemoryRecordStore({ maxRecords: value })],
  ['new MemoryRecordStore: maxBytes', (value) => new MemoryRecordStore({ maxBytes: value })],
  ...[
    'maxConcurrentAttempts',
    'maxConcurrentPerDestination',
    'maxConcurrentAttemptsPerPrincipal',
    'maxPendingDeliveries',
    'maxPendingBytes',
    'maxPendingPerPrincipal',
    'maxPendingBytesPerPrincipal',
    'circuitMaxDestinations',
  ].map((name): [string, (value: number) => unknown] => [
    // The dispatcher's messages have no factory name: `<option> is …` (`callbacks.` in createGateway).
    name,
    (value) => new CallbackDispatcher({ [name]: value }),
  ]),
];

it.each(
  CAPS.flatMap(([cap, create]) =>
    [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53].map(
      (value) => [cap, value, create] as const,
    ),
  ),
)('%s = %s is a config error naming the cap', async (cap, value, create) => {
  let thrown: unknown;
  try {
    await create(value);
  } catch (error) {
    thrown = error;
  }
  expect(isGatewayKitError(thrown), `${cap} accepted ${value}`).toBe(true);
  // The one style of every option error: `<factory>: <option> is <kind>: expected ….`
  expect((thrown as Error).message.startsWith(`${cap} is `), (thrown as Error).message).toBe(true);
  expect((thrown as Error).message).toMatch(/: expected .+\.$/);
});
