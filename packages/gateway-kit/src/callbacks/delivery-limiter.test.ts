import { describe, expect, it } from 'vitest';
import { utf8Length } from '../http/json-size.ts';
import type { AttemptTicket } from './deliver-callback.ts';
import { DeliveryLimiter } from './delivery-limiter.ts';

const clock = { now: Date.now, sleep: async () => undefined };

const WAIT = { maxCircuitWaitMs: 60_000 } as const;

async function enter(
  limiter: DeliveryLimiter,
  destination: string,
  signal?: AbortSignal,
  principal?: string,
) {
  const ticket = await limiter.gate({ origin: destination, principal }, WAIT).enter(signal);
  if (typeof ticket === 'string') throw new Error(`not entered: ${ticket}`);
  return ticket;
}

/** Starts entering and records the order in which entries are granted. */
function queue(
  limiter: DeliveryLimiter,
  destination: string,
  granted: string[],
  signal?: AbortSignal,
  principal?: string,
) {
  return limiter
    .gate({ origin: destination, principal }, WAIT)
    .enter(signal)
    .then((ticket) => {
      if (typeof ticket !== 'string')
        granted.push(principal ? `${principal}:${destination}` : destination);
      return ticket;
    });
}

describe('DeliveryLimiter', () => {
  it('grants free slots across destinations, within both caps', async () => {
    const limiter = new DeliveryLimiter(
      { maxConcurrentAttempts: 2, maxConcurrentPerDestination: 2 },
      clock,
    );
    const first = await enter(limiter, 'a');
    const second = await enter(limiter, 'a');
    expect(limiter.activeAttempts).toBe(2);
    const granted: string[] = [];
    const a3 = queue(limiter, 'a', granted);
    const a4 = queue(limiter, 'a', granted);
    const b1 = queue(limiter, 'b', granted);
    first.leave('success');
    second.leave('success');
    // 'b' gets one of the two slots although two entries of 'a' queued before it.
    const tickets = (await Promise.all([a3, b1])) as AttemptTicket[];
    expect(granted).toEqual(['b', 'a']);
    expect(limiter.activeAttempts).toBe(2);
    for (const ticket of tickets) ticket.leave('success');
    ((await a4) as AttemptTicket).leave('success');
    expect(granted).toEqual(['b', 'a', 'a']);
    expect(limiter.activeAttempts).toBe(0);
  });

  it('an aborted wait leaves the queue and ends as aborted; leaving twice frees one slot', async () => {
    const limiter = new DeliveryLimiter({ maxConcurrentAttempts: 1 }, clock);
    const held = await enter(limiter, 'a');
    const controller = new AbortController();
    const granted: string[] = [];
    const aborted = queue(limiter, 'a', granted, controller.signal);
    const next = queue(limiter, 'b', granted);
    controller.abort();
    expect(await aborted).toBe('aborted');
    held.leave('success');
    held.leave('success');
    ((await next) as AttemptTicket).leave('success');
    expect(granted).toEqual(['b']);
    expect(limiter.activeAttempts).toBe(0);
  });

  it('admits deliveries up to the pending count and bytes, and frees them on release', () => {
    const limiter = new DeliveryLimiter({ maxPendingDeliveries: 2, maxPendingBytes: 100 }, clock);
    const one = limiter.admit(60);
    expect(limiter.admit(50)).toBeUndefined();
    const two = limiter.admit(40);
    expect(limiter.admit(0)).toBeUndefined();
    expect(limiter.pendingDeliveries).toBe(2);
    one?.release();
    one?.release();
    expect(limiter.pendingDeliveries).toBe(1);
    expect(limiter.admit(60)).toBeDefined();
    two?.release();
  });

  it('gives each principal its own share of pending deliveries: one principal at its share does not refuse another', () => {
    const limiter = new DeliveryLimiter(
      { maxPendingDeliveries: 10, maxPendingPerPrincipal: 3, maxPendingBytesPerPrincipal: 100 },
      clock,
    );
    const a = [limiter.admit(10, 'a'), limiter.admit(10, 'a'), limiter.admit(10, 'a')];
    expect(a.every(Boolean)).toBe(true);
    expect(limiter.admit(10, 'a')).toBeUndefined();
    expect(limiter.admit(90, 'b')).toBeDefined();
    expect(limiter.admit(11, 'b')).toBeUndefined(); // b's bytes: 90 + 11 > 100
    expect(limiter.pendingOf('a')).toBe(3);
    a[0]?.release();
    a[0]?.release();
    expect(limiter.pendingOf('a')).toBe(2);
    expect(limiter.admit(10, 'a')).toBeDefined();
  });

  it('grants slots one principal after another, however many destinations one principal waits on', async () => {
    const limiter = new DeliveryLimiter(
      { maxConcurrentAttempts: 1, maxConcurrentPerDestination: 1 },
      clock,
    );
    const held = await enter(limiter, 'x', undefined, 'a');
    const granted: string[] = [];
    // Each granted attempt ends on the next turn of the event loop, freeing the one slot.
    const attempt = (principal: string, origin: string) =>
      limiter
        .gate({ origin, principal }, WAIT)
        .enter(undefined)
        .then((ticket) => {
          granted.push(`${principal}:${origin}`);
          setTimeout(() => (ticket as AttemptTicket).leave('success'), 0);
        });
    const waiting = [
      ...['o1', 'o2', 'o3', 'o4'].map((origin) => attempt('a', origin)),
      attempt('b', 'o1'),
    ];
    held.leave('success');
    await Promise.all(waiting);
    // b waited behind four of a's destinations, and went second.
    expect(granted).toEqual(['a:o1', 'b:o1', 'a:o2', 'a:o3', 'a:o4']);
  });

  it('caps one principal’s attempts in flight, so its silent receivers leave slots to another', async () => {
    const limiter = new DeliveryLimiter(
      { maxConcurrentAttempts: 4, maxConcurrentAttemptsPerPrincipal: 2 },
      clock,
    );
    const a1 = await enter(limiter, 'o1', undefined, 'a');
    await enter(limiter, 'o2', undefined, 'a');
    const granted: string[] = [];
    // a is at its cap: its third attempt waits although two global slots are free.
    const a3 = queue(limiter, 'o3', granted, undefined, 'a');
    (await enter(limiter, 'o1', undefined, 'b')).leave('success');
    expect(granted).toEqual([]);
    expect(limiter.activeAttempts).toBe(2);
    a1.leave('success');
    ((await a3) as AttemptTicket).leave('success');
    expect(granted).toEqual(['a:o3']);
  });

  it('keeps circuits per principal and origin: a principal whose receiver is silent does not open the circuit of another', async () => {
    const limiter = new DeliveryLimiter({ circuitFailureThreshold: 2 }, clock);
    for (let i = 0; i < 2; i++) (await enter(limiter, 'o', undefined, 'a')).leave('failure');
    expect(limiter.circuitDelay({ origin: 'o', principal: 'a' })).toBeGreaterThan(0);
    expect(limiter.circuitDelay({ origin: 'o', principal: 'b' })).toBe(0);
    expect(
      await limiter.gate({ origin: 'o', principal: 'a' }, { maxCircuitWaitMs: 0 }).enter(undefined),
    ).toBe('circuit_open');
    (await enter(limiter, 'o', undefined, 'b')).leave('success');
  });

  it('with a slot wait, ends as busy when no slot frees in time', async () => {
    const limiter = new DeliveryLimiter({ maxConcurrentAttempts: 1 }, clock);
    const held = await enter(limiter, 'o');
    expect(
      await limiter
        .gate({ origin: 'p' }, { maxCircuitWaitMs: 0, maxSlotWaitMs: 20 })
        .enter(undefined),
    ).toBe('busy');
    held.leave('success');
    expect(limiter.activeAttempts).toBe(0);
    (await enter(limiter, 'p')).leave('success');
  });
});

describe('utf8Length', () => {
  it.each(['', 'plain ascii', 'é', '€', '😀', 'a😀é€', '\ud800', 'x\udc00y', '\ud83d'])(
    'matches TextEncoder for %j',
    (text) => {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    },
  );
});
