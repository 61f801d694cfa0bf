import * as v from 'valibot';
import { afterEach, expect, it, vi } from 'vitest';
import { defineAction } from '../actions/define-action.ts';
import { createGateway, type Gateway } from '../gateway/create-gateway.ts';

// workerd refuses timers at a Worker's module scope ("Disallowed operation called within global
// scope"), where `export default { fetch: gateway.fetch }` creates the gateway: the approvals
// sweep then starts with the first approval call instead of failing createGateway.
const refund = defineAction({
  id: 'refund',
  requiresApproval: true,
  input: v.strictObject({ cents: v.number() }),
  run: ({ cents }) => ({ outputText: `Refunded ${cents}.` }),
});

let gateway: Gateway | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await gateway?.close();
  gateway = undefined;
});

function createOutsideAHandler(): Gateway {
  const refuse = vi.spyOn(globalThis, 'setInterval').mockImplementation(() => {
    throw new Error('Disallowed operation called within global scope.');
  });
  try {
    return createGateway({
      gateway: { id: 'g', name: 'G' },
      actions: [refund],
      auth: { tokens: ['t'] },
      approvals: { sweepIntervalMs: 250 },
    });
  } finally {
    refuse.mockRestore();
  }
}

it('creates the gateway where timers are refused, and starts the sweep on the first approval call', async () => {
  gateway = createOutsideAHandler();
  const timers = vi.spyOn(globalThis, 'setInterval');
  await gateway.approvals.list();
  expect(timers.mock.calls.filter(([, ms]) => ms === 250)).toHaveLength(1);
  // Started once: later calls do not add timers.
  await gateway.approvals.list();
  await gateway.approvals.get('apr_unknown');
  expect(timers.mock.calls.filter(([, ms]) => ms === 250)).toHaveLength(1);
});

it('never starts the sweep after close', async () => {
  gateway = createOutsideAHandler();
  await gateway.close();
  const timers = vi.spyOn(globalThis, 'setInterval');
  await gateway.approvals.list();
  expect(timers.mock.calls.filter(([, ms]) => ms === 250)).toHaveLength(0);
});
