import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
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

  it('types run input from a zod 4 schema output (defaults filled, transforms applied)', () => {
    defineAction({
      id: 'zod',
      input: z.object({
        accountId: z.string(),
        limit: z.number().default(10),
        amount: z.string().transform(Number),
        note: z.string().optional(),
      }),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{
          accountId: string;
          limit: number;
          amount: number;
          note?: string | undefined;
        }>();
        return {};
      },
      precheck: (input) => {
        expectTypeOf(input.amount).toEqualTypeOf<number>();
        return undefined;
      },
    });
  });

  it('types run input from an arktype schema output', () => {
    defineAction({
      id: 'ark',
      input: type({ accountId: 'string', 'limit?': 'number', count: 'string.numeric.parse' }),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ accountId: string; limit?: number; count: number }>();
        return {};
      },
    });
  });

  it('types run input from a valibot schema wrapped by toStandardJsonSchema', () => {
    defineAction({
      id: 'wrapped',
      input: toStandardJsonSchema(
        v.object({ accountId: v.string(), limit: v.optional(v.number(), 10) }),
      ),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ accountId: string; limit: number }>();
        return {};
      },
    });
  });

  it('lets actions of different schema libraries share one list', () => {
    const a = defineAction({ id: 'a', input: v.object({ x: v.string() }), run: () => ({}) });
    const b = defineAction({ id: 'b', input: z.object({ y: z.number() }), run: () => ({}) });
    const c = defineAction({ id: 'c', input: type({ z: 'boolean' }), run: () => ({}) });
    expectTypeOf([a, b, c]).toExtend<readonly Action[]>();
  });

  it('refuses input schemas whose input is not an object, and schemas without JSON Schema', () => {
    // @ts-expect-error the input of an action is a JSON object
    defineAction({ id: 'z-string', input: z.string(), run: () => ({}) });
    // @ts-expect-error the input of an action is a JSON object
    defineAction({ id: 'ark-array', input: type('string[]'), run: () => ({}) });
    const validateOnly = {
      '~standard': {
        version: 1 as const,
        vendor: 'old',
        validate: (value: unknown) => ({ value: value as { q: string } }),
        types: { input: { q: '' }, output: { q: '' } },
      },
    };
    // @ts-expect-error Standard Schema without Standard JSON Schema cannot be published
    defineAction({ id: 'validate-only', input: validateOnly, run: () => ({}) });
  });
});
