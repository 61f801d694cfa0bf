import { isStoreUnavailableError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import { RETRY_ALONE, WriteBatcher, type WriteBatcherSettings } from './write-batcher.ts';

/** A transport that records its statements and answers when told to. */
function transport() {
  const statements: string[][] = [];
  const waiting: (() => void)[] = [];
  let hold = false;
  const gate = () => (hold ? new Promise<void>((resolve) => waiting.push(resolve)) : undefined);
  return {
    statements,
    hold: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      for (const resolve of waiting.splice(0)) resolve();
    },
    settings: (
      overrides: Partial<WriteBatcherSettings<string, string>> = {},
    ): WriteBatcherSettings<string, string> => ({
      maxItems: 64,
      maxBytes: 1024,
      maxInFlight: 1,
      maxQueuedItems: 100,
      maxQueuedBytes: 10_000,
      deadlineMs: 5_000,
      deadlineExceeded: () => new Error('deadline'),
      sendOne: async (op) => {
        statements.push([op]);
        await gate();
        if (op === 'refused') throw new Error('refused by the database');
        return `done ${op}`;
      },
      sendMany: async (ops) => {
        statements.push([...ops]);
        await gate();
        return ops.map((op) => (op === 'refused' ? RETRY_ALONE : `done ${op}`));
      },
      ...overrides,
    }),
  };
}

describe('WriteBatcher', () => {
  it('sends a lone write alone, and writes that wait for a statement together', async () => {
    const t = transport();
    const batcher = new WriteBatcher(t.settings());
    expect(await batcher.write('a', 1)).toBe('done a');
    t.hold();
    const first = batcher.write('b', 1);
    while (t.statements.length < 2) await new Promise((resolve) => setImmediate(resolve)); // 'b' in flight
    const rest = ['c', 'd', 'e'].map((op) => batcher.write(op, 1));
    t.release();
    expect(await first).toBe('done b');
    expect(await Promise.all(rest)).toEqual(['done c', 'done d', 'done e']);
    expect(t.statements).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
  });

  it('takes an undefined answer for a result (writes that answer nothing are not sent twice)', async () => {
    const t = transport();
    const statements: string[][] = [];
    const batcher = new WriteBatcher<string, undefined>({
      ...t.settings(),
      sendOne: async (op) => {
        statements.push([op]);
        return undefined;
      },
      sendMany: async (ops) => {
        statements.push([...ops]);
        return ops.map(() => undefined);
      },
    });
    await Promise.all(['a', 'b', 'c'].map((op) => batcher.write(op, 1)));
    expect(statements).toEqual([['a', 'b', 'c']]);
  });

  it('bounds a statement by items and bytes; a write larger than the byte budget goes alone', async () => {
    const t = transport();
    const batcher = new WriteBatcher(t.settings({ maxItems: 3, maxBytes: 100 }));
    const ops = ['a', 'b', 'c', 'd', 'e', 'big', 'f'];
    const sizes: Record<string, number> = { big: 500 };
    const results = await Promise.all(ops.map((op) => batcher.write(op, sizes[op] ?? 40)));
    expect(results).toEqual(ops.map((op) => `done ${op}`));
    // 40-byte writes: 2 fit in 100 bytes; 'big' alone; never more than 3 writes.
    expect(t.statements).toEqual([['a', 'b'], ['c', 'd'], ['e'], ['big'], ['f']]);
  });

  it('answers each caller its own error: a write the batch refused is retried alone', async () => {
    const t = transport();
    const batcher = new WriteBatcher(t.settings());
    const settled = await Promise.allSettled(
      ['a', 'refused', 'b'].map((op) => batcher.write(op, 1)),
    );
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      'done a',
      'Error: refused by the database',
      'done b',
    ]);
    expect(t.statements).toEqual([['a', 'refused', 'b'], ['refused']]);
  });

  it('refuses writes past its queue budget (items or bytes) at once, retryable', async () => {
    const t = transport();
    const batcher = new WriteBatcher(t.settings({ maxQueuedItems: 3, maxQueuedBytes: 100 }));
    t.hold();
    const inFlight = batcher.write('x', 1);
    await new Promise((resolve) => setImmediate(resolve));
    const queued = [batcher.write('a', 10), batcher.write('b', 10), batcher.write('c', 10)];
    await expect(batcher.write('d', 10)).rejects.toSatisfy(isStoreUnavailableError);
    expect(batcher.queued).toBe(3);
    t.release();
    await Promise.all([inFlight, ...queued]);
    const small = new WriteBatcher(t.settings({ maxQueuedBytes: 100 }));
    t.hold();
    const first = small.write('x', 1);
    await new Promise((resolve) => setImmediate(resolve));
    const fits = small.write('a', 90);
    await expect(small.write('b', 20)).rejects.toSatisfy(isStoreUnavailableError);
    t.release();
    await Promise.all([first, fits]);
  });

  it('settles every write within its deadline, sent or waiting, and sends no write that missed it', async () => {
    const t = transport();
    const batcher = new WriteBatcher(t.settings({ deadlineMs: 50 }));
    t.hold();
    const started = Date.now();
    const inFlight = batcher.write('x', 1);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = batcher.write('y', 1);
    await expect(inFlight).rejects.toThrow('deadline');
    await expect(waiting).rejects.toThrow('deadline');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(batcher.queued).toBe(0);
    t.release();
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(t.statements).toEqual([['x']]);
  });

  it('fails waiting writes when closed, and refuses new ones', async () => {
    const t = transport();
    const batcher = new WriteBatcher(t.settings());
    t.hold();
    const inFlight = batcher.write('x', 1);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = batcher.write('y', 1);
    batcher.close();
    await expect(waiting).rejects.toSatisfy(isStoreUnavailableError);
    await expect(batcher.write('z', 1)).rejects.toSatisfy(isStoreUnavailableError);
    t.release();
    expect(await inFlight).toBe('done x');
  });
});
