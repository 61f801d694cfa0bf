import { describe, expect, it } from 'vitest';
import { utf8Length } from '../http/json-size.ts';
import type { AttemptTicket } from './deliver-callback.ts';
import { DeliveryLimiter } from './delivery-limiter.ts';

const clock = { now: Date.now, sleep: async () => undefined };

async function enter(limiter: DeliveryLimiter, destination: string, signal?: AbortSignal) {
  const ticket = await limiter.gate(destination, 60_000).enter(signal);
  if (typeof ticket === 'string') throw new Error(`not entered: ${ticket}`);
  return ticket;
}

/** Starts entering and records the order in which entries are granted. */
function queue(
  limiter: DeliveryLimiter,
  destination: string,
  granted: string[],
  signal?: AbortSignal,
) {
  return limiter
    .gate(destination, 60_000)
    .enter(signal)
    .then((ticket) => {
      if (typeof ticket !== 'string') granted.push(destination);
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
});

describe('utf8Length', () => {
  it.each(['', 'plain ascii', 'é', '€', '😀', 'a😀é€', '\ud800', 'x\udc00y', '\ud83d'])(
    'matches TextEncoder for %j',
    (text) => {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    },
  );
});
