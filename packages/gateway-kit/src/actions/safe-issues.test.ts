import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StandardInputSchema } from './input-schema.ts';
import type { SafeIssue } from './safe-issues.ts';
import { describeIssues, type InputCheck, parseActionInput } from './validation-issues.ts';

const SECRET = 'sk_live_do_not_echo_me';

/** The 422 `details` an input gets from a schema, as the gateway reports them. */
async function detailsOf(schema: Parameters<typeof parseActionInput>[0], input: unknown) {
  const checked: InputCheck = await parseActionInput(schema, input);
  if (checked.success) throw new Error('expected a validation failure');
  return describeIssues(checked.issues, 'action.input');
}

describe('validation issues of Standard Schema inputs', () => {
  it('never quotes the input: arktype literals, zod unknown keys, valibot through toStandardJsonSchema', async () => {
    const ark = await detailsOf(type({ mode: "'fast' | 'slow'", note: 'string' }), {
      mode: SECRET,
      note: 1,
    });
    expect(ark.issues).toEqual([
      { path: 'action.input.mode', message: 'Must be "fast" or "slow"' },
      { path: 'action.input.note', message: 'Must be a string' },
    ]);

    const zod = await detailsOf(z.strictObject({ q: z.string() }), { q: 'x', [SECRET]: SECRET });
    expect(zod.issues).toEqual([{ path: `action.input.${SECRET}`, message: 'Unknown property' }]);

    const wrapped = toStandardJsonSchema(
      v.strictObject({ accountId: v.string(), limit: v.number() }),
    );
    const bad = { accountId: 42, limit: SECRET, [SECRET]: 1 };
    const valibot = await detailsOf(wrapped, bad);
    expect(valibot.issues).toEqual([
      { path: 'action.input.accountId', message: 'Expected string' },
      { path: 'action.input.limit', message: 'Expected number' },
      { path: `action.input.${SECRET}`, message: 'Unknown property' },
    ]);
    // Native valibot reports the same: the wrapper changes nothing the caller sees.
    expect(valibot).toEqual(
      await detailsOf(v.strictObject({ accountId: v.string(), limit: v.number() }), bad),
    );
  });

  it("keeps the schema author's messages, and arktype's path-free problem", async () => {
    const zod = await detailsOf(
      z.object({
        accountId: z.string().regex(/^acc_\d+$/, 'Expected an account id like acc_1001'),
      }),
      { accountId: 'nope' },
    );
    expect(zod.issues).toEqual([
      { path: 'action.input.accountId', message: 'Expected an account id like acc_1001' },
    ]);
    const ark = await detailsOf(type({ owner: { name: 'string >= 2' } }), { owner: { name: 'x' } });
    expect(ark.issues).toEqual([
      { path: 'action.input.owner.name', message: 'Must be at least length 2' },
    ]);
  });

  it('replaces any message of an unknown vendor that quotes a string of the input', async () => {
    const echoing: StandardInputSchema = {
      '~standard': {
        version: 1,
        vendor: 'echo',
        validate: (value) => ({
          issues: [
            { message: `bad value ${JSON.stringify(value)}`, path: [] },
            {
              message: `"${(value as { short: string }).short}" is wrong`,
              path: [{ key: 'short' }],
            },
            { message: 'Keep this one', path: ['fine'] },
          ],
        }),
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    const details = await detailsOf(echoing, { token: SECRET, short: 'ab', fine: 'abc' });
    expect(details.issues).toEqual([
      { path: 'action.input', message: 'Invalid value' },
      { path: 'action.input.short', message: 'Invalid value' },
      { path: 'action.input.fine', message: 'Keep this one' },
    ]);
    expect(JSON.stringify(details)).not.toContain(SECRET);
  });

  it('reports a failure without issues as one root issue, and caps long issue lists', async () => {
    const empty: StandardInputSchema = {
      '~standard': {
        version: 1,
        vendor: 'odd',
        validate: () => ({ issues: [] }),
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    expect(await detailsOf(empty, {})).toEqual({
      issues: [{ path: 'action.input', message: 'Invalid value' }],
    });
    const many = await detailsOf(z.object({ list: z.array(z.string()) }), {
      list: Array.from({ length: 25 }, (_, index) => index),
    });
    expect(many.issues).toHaveLength(20);
    expect(many.truncated).toBe(5);
    expect(many.issues[19]).toEqual({ path: 'action.input.list.19', message: expect.any(String) });

    const keys = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`k${index}`, 1]));
    const unknown = await detailsOf(z.strictObject({}), keys);
    expect(unknown.issues).toHaveLength(20);
    expect(unknown.issues[0]).toEqual({ path: 'action.input.k0', message: 'Unknown property' });
    expect(unknown.truncated).toBe(980);
  });
});

describe('parseActionInput', () => {
  it('answers synchronously when validate does, and awaits only a promise', async () => {
    const sync = parseActionInput(z.object({ q: z.string() }), { q: 'x' });
    expect(sync).not.toBeInstanceOf(Promise);
    expect(sync).toEqual({ success: true, output: { q: 'x' } });

    const asyncZod = z.object({
      q: z.string().refine(async (q) => q !== 'taken', 'Already taken'),
    });
    const pending = parseActionInput(asyncZod, { q: 'taken' });
    expect(pending).toBeInstanceOf(Promise);
    expect(describeIssues(((await pending) as { issues: readonly SafeIssue[] }).issues)).toEqual({
      issues: [{ path: 'q', message: 'Already taken' }],
    });
  });

  it('turns a thenable that is not a native promise into one', async () => {
    const thenable: StandardInputSchema = {
      '~standard': {
        version: 1,
        vendor: 'lazy',
        validate: (value) =>
          ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable is the point of this test
            then: (resolve: (result: unknown) => void) => resolve({ value }),
          }) as never,
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    const pending = parseActionInput(thenable, { q: 1 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ success: true, output: { q: 1 } });
  });

  it('keeps the output of the schema (transforms and defaults), not the raw input', () => {
    const zod = z.object({ n: z.string().transform(Number), page: z.number().default(1) });
    expect(parseActionInput(zod, { n: '42' })).toEqual({
      success: true,
      output: { n: 42, page: 1 },
    });
    const ark = type({ n: 'string.numeric.parse' });
    expect(parseActionInput(ark, { n: '7' })).toEqual({ success: true, output: { n: 7 } });
  });
});
