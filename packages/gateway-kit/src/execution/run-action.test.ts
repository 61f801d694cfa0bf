import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import type { ActionContext, JobHandle } from '../actions/define-action.ts';
import { defineAction } from '../actions/define-action.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import { type RunScope, runAction } from './run-action.ts';

const runtime = { logger: { error: vi.fn() } } as unknown as GatewayRuntime;
const invocation = {
  invocationId: 'inv_1',
  meeting: { id: 'mtg_1', roomName: 'Room' },
  session: { id: 'sess_1', mode: 'active' as const },
  context: {},
};

function scopeOf(run: (input: unknown, context: ActionContext) => unknown): RunScope {
  return {
    runtime,
    action: defineAction({ id: 'probe', input: v.object({}), run: run as never }),
    input: {},
    invocation,
    principal: { id: 'p1' },
    budgetMs: 30_000,
  };
}

describe('runAction', () => {
  it('gives a destructured signal that aborts with a TimeoutError when the budget runs out', async () => {
    vi.useFakeTimers();
    try {
      let seen: AbortSignal | undefined;
      const outcome = runAction({
        ...scopeOf((_input, { signal }) => {
          seen = signal;
          return new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason)),
          );
        }),
        budgetMs: 1_000,
      });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await outcome).toEqual({ kind: 'timed_out' });
      expect(seen?.reason).toMatchObject({ name: 'TimeoutError' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('aborts the signal when the abort source does, and reads the source only when asked', async () => {
    const source = new AbortController();
    const reads = vi.fn(() => source.signal);
    const abortSource = {
      get signal() {
        return reads();
      },
    };
    // An action that never looks at its signal costs no listener on the source.
    await runAction({ ...scopeOf(async () => ({ outputText: 'ok' })), abortSource });
    expect(reads).not.toHaveBeenCalled();

    const outcome = runAction({
      ...scopeOf(
        (_input, context) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          ),
      ),
      abortSource,
    });
    source.abort(new DOMException('gone', 'AbortError'));
    expect(await outcome).toEqual({ kind: 'aborted' });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('passes `job` only to a run as a job', async () => {
    const contexts: ActionContext[] = [];
    const scope = scopeOf((_input, context) => {
      contexts.push(context);
      return { outputText: 'ok' };
    });
    const job: JobHandle = { jobId: 'job_1', progress: async () => {} };
    runAction(scope);
    runAction({ ...scope, job });
    expect('job' in contexts[0]!).toBe(false);
    expect(contexts[1]!.job).toBe(job);
    expect(contexts[1]!.invocation).toBe(invocation);
    expect(contexts[1]!.principal).toEqual({ id: 'p1' });
  });

  it('builds every context from one class, with `signal` on its prototype', () => {
    // An object literal with a getter makes a new closure, hence a new hidden class, per run;
    // those live in old space and keep each run's objects alive until a full GC (measured: a
    // third of the gateway's CPU under load went to scavenges).
    const contexts: ActionContext[] = [];
    const scope = scopeOf((_input, context) => {
      contexts.push(context);
      return {};
    });
    runAction(scope);
    runAction(scope);
    expect(Object.getPrototypeOf(contexts[0])).toBe(Object.getPrototypeOf(contexts[1]));
    expect(Object.getOwnPropertyDescriptor(contexts[0], 'signal')).toBeUndefined();
  });
});
