import { describe, expect, it } from 'vitest';
import { checkOptionNames, refusalFor, timerMs } from './config-refusal.ts';
import { GatewayConfigError } from './gateway-config-error.ts';

/** The message of what `act` throws, checked to be a GatewayConfigError. */
function refusal(act: () => unknown): string {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error('nothing was refused');
}

describe('checkOptionNames (for store adapters)', () => {
  const known = ['url', 'maxJobs', 'leaseMs'];

  it('passes known names, and no options at all', () => {
    expect(checkOptionNames('new XStore', { url: 'redis://x', leaseMs: 5 }, known)).toBeUndefined();
    expect(checkOptionNames('new XStore', {}, known)).toBeUndefined();
  });

  it('names every unknown option and lists the known ones, never a value', () => {
    expect(refusal(() => checkOptionNames('new XStore', { maxJob: 5 }, known))).toBe(
      'new XStore: unknown option "maxJob" (known: url, maxJobs, leaseMs).',
    );
    const message = refusal(() =>
      checkOptionNames('new XStore', { urll: 'redis://:hunter2@db', leaseMss: 9 }, known),
    );
    expect(message).toBe(
      'new XStore: unknown options "urll", "leaseMss" (known: url, maxJobs, leaseMs).',
    );
    expect(message).not.toContain('hunter2');
  });

  it('refuses options that are no object, saying what they are', () => {
    expect(refusal(() => checkOptionNames('new XStore', null, known))).toBe(
      'new XStore: options is null: expected an options object.',
    );
    expect(refusal(() => checkOptionNames('new XStore', 'redis://:hunter2@db', known))).toBe(
      'new XStore: options is a string: expected an options object.',
    );
    expect(refusal(() => checkOptionNames('new XStore', [], known))).toBe(
      'new XStore: options is an empty array: expected an options object.',
    );
  });
});

describe('timerMs', () => {
  const refuse = refusalFor('new XStore');

  it('takes 1 … 2 147 483 647 ms, and 0 only when the timer may be off', () => {
    expect(timerMs(refuse, 'leaseMs', 1)).toBe(1);
    expect(timerMs(refuse, 'leaseMs', 2_147_483_647)).toBe(2_147_483_647);
    expect(timerMs(refuse, 'sweepIntervalMs', 0, true)).toBe(0);
    expect(refusal(() => timerMs(refuse, 'leaseMs', 0))).toBe(
      'new XStore: leaseMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
    );
    expect(refusal(() => timerMs(refuse, 'leaseMs', 2_147_483_648))).toContain(
      'leaseMs is the number 2147483648',
    );
  });
});
