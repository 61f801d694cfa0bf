import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { reject } from './action-rejection.ts';
import type { Action } from './define-action.ts';
import { defineAction } from './define-action.ts';

describe('defineAction types', () => {
  it('types run input from the schema output', () => {
    defineAction({
      id: 'typed',
      input: v.object({ accountId: v.string(), limit: v.optional(v.number(), 10) }),
      run: (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ accountId: string; limit: number }>();
        expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(context.principal.id).toEqualTypeOf<string>();
        return input.limit > 5
          ? { outputText: input.accountId }
          : reject({ code: 'c', message: 'm' });
      },
    });
  });

  it('lets actions with different inputs share one list', () => {
    const a = defineAction({ id: 'a', input: v.object({ x: v.string() }), run: () => ({}) });
    const b = defineAction({ id: 'b', input: v.object({ y: v.number() }), run: () => ({}) });
    expectTypeOf([a, b]).toExtend<readonly Action[]>();
  });

  it('refuses results that are not action results', () => {
    defineAction({
      id: 'bad',
      input: v.object({}),
      // @ts-expect-error outputText must be a string
      run: () => ({ outputText: 42 }),
    });
  });
});
