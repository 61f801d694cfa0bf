import { describe, expect, it, vi } from 'vitest';
import { abortOnTimeout, TIMED_OUT, withinBudget } from './time-budget.ts';

const never = new Promise<never>(() => {});

describe('withinBudget', () => {
  it('resolves the value when the work settles in time, and keeps no timer', async () => {
    vi.useFakeTimers();
    try {
      await expect(withinBudget(Promise.resolve(7), { budgetMs: 1_000 })).resolves.toBe(7);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('arms no timer for work that settled already (an async function that awaited nothing)', async () => {
    const armed = vi.spyOn(globalThis, 'setTimeout');
    try {
      const settled = (async () => 7)();
      await expect(withinBudget(settled, { budgetMs: 1_000 })).resolves.toBe(7);
      expect(armed).not.toHaveBeenCalled();
      // Work still pending one microtask later gets its timer.
      const later = withinBudget(new Promise((resolve) => setImmediate(resolve)), {
        budgetMs: 1_000,
      });
      await later;
      expect(armed).toHaveBeenCalledWith(expect.any(Function), 1_000);
    } finally {
      armed.mockRestore();
    }
  });

  it('resolves TIMED_OUT once the budget passes, after calling onTimeout (which may abort the work)', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const waiting = withinBudget(never, {
        budgetMs: 500,
        onTimeout: abortOnTimeout(controller),
      });
      await vi.advanceTimersByTimeAsync(499);
      expect(controller.signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await expect(waiting).resolves.toBe(TIMED_OUT);
      expect((controller.signal.reason as DOMException).name).toBe('TimeoutError');
    } finally {
      vi.useRealTimers();
    }
  });

  it('resolves TIMED_OUT as soon as the signal aborts, or at once for an aborted one', async () => {
    const controller = new AbortController();
    const waiting = withinBudget(never, { signal: controller.signal });
    controller.abort();
    await expect(waiting).resolves.toBe(TIMED_OUT);
    await expect(withinBudget(never, { signal: AbortSignal.abort() })).resolves.toBe(TIMED_OUT);
  });

  it('rejects with the work when it fails first; a failure after the race is lost is ignored', async () => {
    const error = new Error('boom');
    await expect(withinBudget(Promise.reject(error), { budgetMs: 1_000 })).rejects.toBe(error);
    let fail = (_error: Error): void => {};
    const late = new Promise<never>((_resolve, reject) => {
      fail = reject;
    });
    await expect(withinBudget(late, { signal: AbortSignal.abort() })).resolves.toBe(TIMED_OUT);
    fail(error); // no unhandled rejection: vitest would fail the run
  });

  it('removes its abort listener when the work settles', async () => {
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    await withinBudget(Promise.resolve('done'), { signal: controller.signal });
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
  });
});
