import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { recordStoreConformance } from '../testing/record-store-conformance.ts';
import { MemoryRecordStore } from './memory-record-store.ts';
import { RecordStoreFullError } from './record-store-full-error.ts';

let clock = Date.UTC(2025, 0, 1);

recordStoreConformance({
  name: 'MemoryRecordStore (fake clock)',
  createStore: () => new MemoryRecordStore({ now: () => clock }),
  test: { describe, it },
  fc,
  ttl: {
    ttlMs: 60_000,
    advanceTime: (ms) => {
      clock += ms;
    },
  },
});

// The real-time path of the suite (what adapters without a clock hook use), kept short.
recordStoreConformance({
  name: 'MemoryRecordStore (real time)',
  createStore: () => new MemoryRecordStore(),
  test: { describe, it },
  fc,
  numRuns: 20,
  // Long enough that a loaded machine's scheduling never outlasts the "still alive" checks.
  ttl: { ttlMs: 1_000 },
});

// A store without the optional batch methods (as Cloudflare's and custom stores): the gateway's
// set-by-set fallback of addToSets / removeFromSets keeps the same guarantees.
recordStoreConformance({
  name: 'MemoryRecordStore without addToSets (the fallback)',
  createStore: () => {
    const store = new MemoryRecordStore({ now: () => clock });
    return Object.assign(store, { addToSets: undefined, removeFromSets: undefined });
  },
  test: { describe, it },
  fc,
  numRuns: 20,
  ttl: {
    ttlMs: 60_000,
    advanceTime: (ms) => {
      clock += ms;
    },
  },
});

describe('MemoryRecordStore', () => {
  describe('options', () => {
    it.each([
      { maxRecords: 0 },
      { maxRecords: -1 },
      { maxRecords: 1.5 },
      { maxRecords: Number.NaN },
      { maxRecords: Number.POSITIVE_INFINITY },
      { maxRecords: '10' as unknown as number },
    ])('rejects %o with a GatewayConfigError', (options) => {
      expect(() => new MemoryRecordStore(options)).toThrow(GatewayConfigError);
    });

    it('accepts maxRecords 1 and no options at all', async () => {
      expect(() => new MemoryRecordStore()).not.toThrow();
      const single = new MemoryRecordStore({ maxRecords: 1 });
      expect((await single.create('only', 1, 1_000)).created).toBe(true);
      await expect(single.create('second', 2, 1_000)).rejects.toThrow(RecordStoreFullError);
    });
  });

  describe('maxRecords', () => {
    let now = 0;
    const bounded = (maxRecords: number) => new MemoryRecordStore({ maxRecords, now: () => now });

    it('rejects a create with RecordStoreFullError when full of live records, keeping them all', async () => {
      now = 0;
      const store = bounded(3);
      for (const key of ['a', 'b', 'c']) await store.create(key, { key }, 60_000);
      const rejection = await store.create('d', { key: 'd' }, 60_000).catch((e: unknown) => e);
      expect(rejection).toBeInstanceOf(RecordStoreFullError);
      expect(rejection).toMatchObject({ name: 'RecordStoreFullError' });
      expect(await store.get('d')).toBeUndefined();
      for (const key of ['a', 'b', 'c'])
        expect(await store.get(key)).toEqual({ value: { key }, version: 1 });
      expect(store.size).toBe(3);
    });

    it('sweeps every expired record before refusing, and never evicts a live one', async () => {
      now = 0;
      const store = bounded(4);
      await store.create('short-1', 1, 1_000);
      await store.create('live-1', 2, 60_000);
      await store.create('short-2', 3, 1_000);
      await store.create('live-2', 4, 60_000);
      now = 1_000; // both short records expire exactly now
      // Expired records still occupy memory until a read or a sweep frees them.
      expect(store.size).toBe(4);
      expect((await store.create('new-1', 5, 60_000)).created).toBe(true);
      expect(store.size).toBe(3); // both expired records went in one sweep
      expect((await store.create('new-2', 6, 60_000)).created).toBe(true);
      await expect(store.create('new-3', 7, 60_000)).rejects.toThrow(RecordStoreFullError);
      for (const key of ['live-1', 'live-2', 'new-1', 'new-2'])
        expect(await store.get(key), key).toBeDefined();
      for (const key of ['short-1', 'short-2', 'new-3'])
        expect(await store.get(key), key).toBeUndefined();
    });

    it('in a full store, a create of an existing key returns it instead of refusing', async () => {
      now = 0;
      const store = bounded(2);
      await store.create('a', { v: 1 }, 60_000);
      await store.create('b', { v: 2 }, 60_000);
      expect(await store.create('a', { v: 'other' }, 60_000)).toEqual({
        created: false,
        record: { value: { v: 1 }, version: 1 },
      });
    });

    it('a delete or a replace-then-expiry frees a slot', async () => {
      now = 0;
      const store = bounded(2);
      const a = await store.create('a', 1, 60_000);
      const b = await store.create('b', 2, 60_000);
      await expect(store.create('c', 3, 60_000)).rejects.toThrow(RecordStoreFullError);
      expect(await store.delete('a', a.record.version)).toBe(true);
      expect((await store.create('c', 3, 60_000)).created).toBe(true);
      // Replacing with a short TTL lets the record expire and free its slot.
      expect(await store.replace('b', b.record.version, 2, 10)).toEqual({ value: 2, version: 2 });
      now += 10;
      expect((await store.create('d', 4, 60_000)).created).toBe(true);
      expect(await store.get('b')).toBeUndefined();
    });
  });

  it('keeps values as JSON, like any store: refuses what JSON cannot hold, storing nothing', async () => {
    const store = new MemoryRecordStore();
    await expect(store.create('k', { amount: 1n }, 1_000)).rejects.toThrow();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await expect(store.create('k', cycle, 1_000)).rejects.toThrow();
    expect(await store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
    await store.close();
  });

  it('budgets bytes as well as records: a create over maxBytes is refused, expired bytes are freed', async () => {
    let now = Date.now();
    const store = new MemoryRecordStore({ maxBytes: 64 * 1024, now: () => now });
    const big = { text: 'x'.repeat(20 * 1024) };
    for (const key of ['a', 'b', 'c']) await store.create(key, big, 1_000);
    await expect(store.create('d', big, 1_000)).rejects.toThrow(RecordStoreFullError);
    expect(store.bytes).toBeLessThanOrEqual(64 * 1024);
    now += 1_001;
    await store.create('d', big, 1_000);
    expect(store.size).toBe(1);
    await store.close();
  });

  it('keeps time-ordered sets bounded by maxSize, in expiry order, and pages them', async () => {
    let now = Date.now();
    const store = new MemoryRecordStore({ now: () => now });
    expect(await store.addToSet('s', 'a', 3_000, 2)).toBe(true);
    expect(await store.addToSet('s', 'b', 1_000, 2)).toBe(true);
    expect(await store.addToSet('s', 'c', 1_000, 2)).toBe(false);
    // An existing member is always accepted, and never moved earlier.
    expect(await store.addToSet('s', 'b', 10, 2)).toBe(true);
    expect((await store.rangeOfSet('s', 10)).map((entry) => entry.member)).toEqual(['b', 'a']);
    const [first] = await store.rangeOfSet('s', 1);
    expect((await store.rangeOfSet('s', 10, first)).map((entry) => entry.member)).toEqual(['a']);
    now += 1_001;
    expect(await store.addToSet('s', 'c', 1_000, 2)).toBe(true);
    await store.removeFromSet('s', 'a');
    expect((await store.rangeOfSet('s', 10)).map((entry) => entry.member)).toEqual(['c']);
    await store.close();
  });
});
