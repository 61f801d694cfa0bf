import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { generate, invalidInputs } from './generate-input.ts';

const jsonSchema = (schema: v.GenericSchema) =>
  toJsonSchema(schema, { typeMode: 'input', target: 'draft-07' }) as Record<string, unknown>;

describe('generate', () => {
  it('generates a value the original valibot schema accepts, for the subset valibot emits', () => {
    const schema = v.strictObject({
      id: v.pipe(v.string(), v.regex(/^acc_\d+$/)),
      name: v.pipe(v.string(), v.minLength(20), v.maxLength(30)),
      email: v.pipe(v.string(), v.email()),
      website: v.pipe(v.string(), v.url()),
      at: v.pipe(v.string(), v.isoTimestamp()),
      uuid: v.pipe(v.string(), v.uuid()),
      plan: v.picklist(['team', 'enterprise']),
      count: v.pipe(v.number(), v.integer(), v.minValue(3), v.maxValue(9)),
      ratio: v.pipe(v.number(), v.maxValue(-0.5)),
      active: v.boolean(),
      tags: v.pipe(v.array(v.string()), v.minLength(2)),
      address: v.strictObject({ city: v.string(), zip: v.optional(v.string()) }),
      kind: v.literal('demo'),
      either: v.union([v.number(), v.string()]),
      note: v.optional(v.string()),
      maybe: v.nullable(v.string()),
    });
    const generated = generate(jsonSchema(schema));
    if (!('value' in generated)) throw new Error(generated.skip);
    expect(v.safeParse(schema, generated.value).issues).toBeUndefined();
    expect(generated.value).not.toHaveProperty('note');
  });

  it.each([
    [
      { type: 'object', required: ['x'], properties: { x: { $ref: '#/definitions/x' } } },
      'input.x: $ref is not generated',
    ],
    [
      { type: 'object', required: ['x'], properties: { x: { type: 'string', format: 'ipv9' } } },
      'format "ipv9" is not generated',
    ],
    [
      {
        type: 'object',
        required: ['x'],
        properties: { x: { type: 'integer', minimum: 2, maximum: 1 } },
      },
      'no number fits',
    ],
    [
      { type: 'object', required: ['x'], properties: { x: { allOf: [{ type: 'string' }] } } },
      'allOf is not generated',
    ],
    [
      { type: 'object', required: ['x'], additionalProperties: false },
      'input.x: the schema accepts nothing',
    ],
    [
      {
        type: 'object',
        required: ['x'],
        properties: { x: { type: 'string', pattern: '^a$', minLength: 3 } },
      },
      'no sample of length',
    ],
  ])('skips what it cannot generate, saying why: %j', (schema, why) => {
    const generated = generate(schema);
    expect('skip' in generated && generated.skip).toContain(why);
  });

  it('stops at a bounded depth', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++)
      schema = { type: 'object', required: ['a'], properties: { a: schema } };
    const generated = generate(schema);
    expect('skip' in generated && generated.skip).toContain('nested deeper than 32 levels');
  });
});

describe('invalidInputs', () => {
  it('breaks a strict object three ways, each rejected by the original schema', () => {
    const schema = v.strictObject({
      topic: v.pipe(v.string(), v.minLength(1)),
      pages: v.optional(v.number()),
    });
    const json = jsonSchema(schema);
    const valid = generate(json);
    if (!('value' in valid)) throw new Error(valid.skip);
    const variants = invalidInputs(json, valid.value as Record<string, unknown>);
    expect(variants.map((i) => i.change)).toEqual([
      'with an unknown property "gatewayCheckUnknown"',
      'without the required property "topic"',
      'with "topic" of a type other than string',
    ]);
    for (const variant of variants) expect(v.is(schema, variant.value)).toBe(false);
  });

  it('finds nothing to break in a schema that accepts any object', () => {
    expect(invalidInputs({ type: 'object' }, {})).toEqual([]);
  });
});
