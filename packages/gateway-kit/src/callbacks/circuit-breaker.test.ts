import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.ts';

function breaker(overrides: Partial<{ failureThreshold: number; maxDestinations: number }> = {}) {
  let clock = Date.now();
  const created = new CircuitBreaker({
    failureThreshold: 3,
    cooldownMs: 1_000,
    maxDestinations: 100,
    now: () => clock,
    ...overrides,
  });
  return {
    breaker: created,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('CircuitBreaker', () => {
  it('opens after consecutive failures only; a success in between resets the count', () => {
    const { breaker: b } = breaker();
    b.record('a', 'failure', false);
    b.record('a', 'failure', false);
    b.record('a', 'success', false);
    b.record('a', 'failure', false);
    b.record('a', 'failure', false);
    expect(b.tryPass('a')).toBe('pass');
    b.record('a', 'failure', false);
    expect(b.check('a')).toMatchObject({ kind: 'open' });
    expect(b.tryPass('a')).toBe('blocked');
  });

  it('lets exactly one probe through after the cooldown; a failed probe re-opens, a good one closes', async () => {
    const { breaker: b, advance } = breaker({ failureThreshold: 1 });
    b.record('a', 'failure', false);
    advance(999);
    expect(b.tryPass('a')).toBe('blocked');
    advance(1);
    expect(b.tryPass('a')).toBe('probe');
    expect(b.tryPass('a')).toBe('blocked');
    expect(b.check('a')).toEqual({ kind: 'probing' });
    const changed = b.changed('a');
    b.record('a', 'failure', true);
    await changed;
    expect(b.check('a')).toMatchObject({ kind: 'open' });

    advance(1_000);
    expect(b.tryPass('a')).toBe('probe');
    b.record('a', 'success', true);
    expect(b.check('a')).toEqual({ kind: 'closed' });
    expect(b.size).toBe(0);
  });

  it('a probe that learnt nothing frees the half-open slot for the next one', () => {
    const { breaker: b, advance } = breaker({ failureThreshold: 1 });
    b.record('a', 'failure', false);
    advance(1_000);
    expect(b.tryPass('a')).toBe('probe');
    b.record('a', 'neutral', true);
    expect(b.tryPass('a')).toBe('probe');
  });

  it('keeps other destinations closed while one is open', () => {
    const { breaker: b } = breaker({ failureThreshold: 1 });
    b.record('a', 'failure', false);
    expect(b.tryPass('a')).toBe('blocked');
    expect(b.tryPass('b')).toBe('pass');
  });

  it('remembers at most maxDestinations, forgetting the least recently used closed one first', () => {
    const { breaker: b } = breaker({ failureThreshold: 2, maxDestinations: 3 });
    b.record('open', 'failure', false);
    b.record('open', 'failure', false);
    b.record('old', 'failure', false);
    b.record('recent', 'failure', false);
    b.record('new', 'failure', false);
    expect(b.size).toBe(3);
    // 'old' (one failure, closed) was forgotten; 'open' stays open although it is older.
    expect(b.check('open')).toMatchObject({ kind: 'open' });
    b.record('old', 'failure', false);
    expect(b.check('old')).toEqual({ kind: 'closed' });
    // 'recent' was the least recently used closed one now, so it went; one more failure
    // does not open it.
    b.record('recent', 'failure', false);
    expect(b.check('recent')).toEqual({ kind: 'closed' });
    expect(b.size).toBe(3);
  });

  it('stays bounded when every destination is open, forgetting the oldest', async () => {
    const { breaker: b } = breaker({ failureThreshold: 1, maxDestinations: 2 });
    b.record('a', 'failure', false);
    b.record('b', 'failure', false);
    const changed = b.changed('a');
    b.record('c', 'failure', false);
    await changed; // waiters of a forgotten destination are released, not stranded
    expect(b.size).toBe(2);
    expect(b.check('a')).toEqual({ kind: 'closed' });
    expect(b.check('c')).toMatchObject({ kind: 'open' });
  });
});
