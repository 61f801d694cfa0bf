import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { defineAction } from './define-action.ts';

const input = v.strictObject({ orderId: v.string() });
const run = () => ({ outputText: 'done' });

/** What a JavaScript caller (no type checking) gets from defineAction. */
function messageFor(definition: unknown): string {
  try {
    defineAction(definition as Parameters<typeof defineAction>[0]);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error('defineAction accepted the definition');
}

describe('defineAction refuses what would otherwise run with the defaults', () => {
  it('a misspelt key: an action meant to need approval would run without one', () => {
    expect(
      messageFor({ id: 'refund', input, run, sideEffect: 'write', requireApproval: true }),
    ).toBe(
      'defineAction("refund"): unknown options "sideEffect", "requireApproval" (known: id, name, title, description, input, executionMode, requiresApproval, sideEffectLevel, idempotent, timeoutMs, precheck, run).',
    );
  });

  it.each([
    [
      { sideEffectLevel: 'reed' },
      "sideEffectLevel is a string: expected 'read', 'write' or 'destructive'.",
    ],
    [{ executionMode: 'asynch' }, "executionMode is a string: expected 'sync' or 'async'."],
    [{ requiresApproval: 'yes' }, 'requiresApproval is a string: expected true or false.'],
    [{ idempotent: 1 }, 'idempotent is the number 1: expected true or false.'],
    [{ title: 42 }, 'title is the number 42: expected a string.'],
    [
      { precheck: 'no' },
      'precheck is a string: expected (input, context) => rejection or undefined.',
    ],
  ])('a value of the wrong kind, named (a string never quoted): %o', (wrong, expected) => {
    const message = messageFor({ id: 'refund', input, run, ...wrong });
    expect(message).toBe(`defineAction("refund"): ${expected}`);
  });

  it('a definition without run or input, or no definition at all', () => {
    expect(messageFor({ id: 'refund', input })).toBe(
      'defineAction("refund"): run is undefined: expected (input, context) => result.',
    );
    expect(messageFor({ id: 'refund', run })).toMatch(
      /^defineAction\("refund"\): input is undefined/,
    );
    expect(messageFor(undefined)).toMatch(/^defineAction: definition is undefined/);
  });

  it('keeps every documented key, with its defaults', () => {
    const action = defineAction({
      id: 'refund',
      name: 'issueRefund',
      title: 'Issue a refund',
      description: 'Refunds an order.',
      input,
      executionMode: 'async',
      requiresApproval: true,
      sideEffectLevel: 'destructive',
      idempotent: true,
      timeoutMs: 5_000,
      precheck: () => undefined,
      run,
    });
    expect(action).toMatchObject({
      requiresApproval: true,
      sideEffectLevel: 'destructive',
      executionMode: 'async',
      timeoutMs: 5_000,
    });
    expect(defineAction({ id: 'plain', input, run })).toMatchObject({
      name: 'plain',
      requiresApproval: false,
      sideEffectLevel: 'read',
      executionMode: 'sync',
    });
  });
});

describe('defineAction fills in the documented defaults', () => {
  it('timeoutMs: 10 minutes for async and approval actions, 30 s for the others', () => {
    expect(defineAction({ id: 'a', input, run }).timeoutMs).toBe(30_000);
    expect(defineAction({ id: 'a', input, run, executionMode: 'async' }).timeoutMs).toBe(600_000);
    expect(defineAction({ id: 'a', input, run, requiresApproval: true }).timeoutMs).toBe(600_000);
    expect(
      defineAction({ id: 'a', input, run, executionMode: 'async', timeoutMs: 5 }).timeoutMs,
    ).toBe(5);
  });

  it('the rest: sync, read, not idempotent, no approval, name = id', () => {
    const action = defineAction({ id: 'a', input, run });
    expect(action).toMatchObject({
      name: 'a',
      executionMode: 'sync',
      sideEffectLevel: 'read',
      idempotent: false,
      requiresApproval: false,
    });
  });
});
