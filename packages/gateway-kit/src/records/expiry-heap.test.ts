import * as fc from 'fast-check';
import { expect, it } from 'vitest';
import { ExpiryHeap } from './expiry-heap.ts';

it('pops keys earliest expiry first, whatever the order they were pushed in', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 200 }), (times) => {
      const heap = new ExpiryHeap();
      for (const [i, at] of times.entries()) heap.push(`k${i}`, at);
      const popped: number[] = [];
      while (heap.size > 0) {
        popped.push(heap.peekTime());
        heap.pop();
      }
      expect(popped).toEqual([...times].sort((a, b) => a - b));
      expect(heap.peekTime()).toBe(Number.POSITIVE_INFINITY);
      expect(heap.pop()).toBeUndefined();
    }),
  );
});
