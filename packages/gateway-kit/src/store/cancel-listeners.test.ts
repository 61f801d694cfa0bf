import { describe, expect, it, vi } from 'vitest';
import { CancelListeners } from './cancel-listeners.ts';

describe('CancelListeners', () => {
  it('deliver calls each listener of the job once, and only that job’s', () => {
    const listeners = new CancelListeners();
    const a = vi.fn();
    const b = vi.fn();
    const other = vi.fn();
    listeners.add('job_1', a);
    listeners.add('job_1', b);
    listeners.add('job_2', other);
    expect(listeners.size).toBe(3);
    expect(listeners.jobIds()).toEqual(['job_1', 'job_2']);
    listeners.deliver('job_1');
    listeners.deliver('job_1');
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(1);
    expect(other).not.toHaveBeenCalled();
    expect(listeners.size).toBe(1);
    expect(listeners.jobIds()).toEqual(['job_2']);
  });

  it('an unsubscribed listener is never called and no longer counted; unsubscribing twice is harmless', () => {
    const listeners = new CancelListeners();
    const kept = vi.fn();
    const dropped = vi.fn();
    listeners.add('job_1', kept);
    const unsubscribe = listeners.add('job_1', dropped);
    unsubscribe();
    unsubscribe();
    expect(listeners.size).toBe(1);
    listeners.deliver('job_1');
    expect(dropped).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    const last = listeners.add('job_3', vi.fn());
    last();
    expect(listeners.size).toBe(0);
    expect(listeners.jobIds()).toEqual([]);
  });

  it('release and clear forget listeners uncalled; a later unsubscribe of one changes nothing', () => {
    const listeners = new CancelListeners();
    const released = vi.fn();
    const unsubscribe = listeners.add('job_1', released);
    listeners.release('job_1');
    const later = vi.fn();
    listeners.add('job_1', later);
    unsubscribe();
    expect(listeners.size).toBe(1);
    listeners.deliver('job_1');
    expect(released).not.toHaveBeenCalled();
    expect(later).toHaveBeenCalledTimes(1);
    const cleared = vi.fn();
    listeners.add('job_2', cleared);
    listeners.clear();
    listeners.deliver('job_2');
    expect(cleared).not.toHaveBeenCalled();
    expect(listeners.size).toBe(0);
  });

  it('a listener that throws is reported with its job id; the others still run', () => {
    const onError = vi.fn();
    const listeners = new CancelListeners(onError);
    const boom = new Error('boom');
    const after = vi.fn();
    listeners.add('job_1', () => {
      throw boom;
    });
    listeners.add('job_1', after);
    listeners.deliver('job_1');
    expect(onError).toHaveBeenCalledWith(boom, 'job_1');
    expect(after).toHaveBeenCalledTimes(1);
  });

  it('addCancelled calls the listener once, in a microtask, unless unsubscribed first; it is not counted', async () => {
    const listeners = new CancelListeners();
    const told = vi.fn();
    const dropped = vi.fn();
    listeners.addCancelled('job_1', told);
    listeners.addCancelled('job_1', dropped)();
    expect(told).not.toHaveBeenCalled();
    expect(listeners.size).toBe(0);
    await Promise.resolve();
    listeners.deliver('job_1');
    expect(told).toHaveBeenCalledTimes(1);
    expect(dropped).not.toHaveBeenCalled();
  });
});
