import { describe, expect, it } from 'vitest';
import { checkInputSchema } from './json-schema-check.ts';

describe('checkInputSchema', () => {
  it('accepts an object schema with the usual keywords', () => {
    expect(
      checkInputSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          id: { type: 'string', pattern: '^a', minLength: 1 },
          n: { type: ['integer', 'null'], minimum: 0 },
        },
        required: ['id'],
        additionalProperties: false,
      }),
    ).toEqual([]);
  });

  it.each([
    [[], 'inputSchema: must be a JSON Schema object'],
    [{ type: 'string' }, "inputSchema.type: the root must be 'object'"],
    [
      { type: 'object', required: 'id' },
      'inputSchema.required: must be a list of distinct property names',
    ],
    [
      { type: 'object', properties: { a: { type: 'text' } } },
      'inputSchema.properties.a.type: must be a JSON Schema type',
    ],
    [
      { type: 'object', properties: { a: { pattern: '(' } } },
      'inputSchema.properties.a.pattern: must be a regular expression',
    ],
    [
      { type: 'object', properties: { a: 3 } },
      'inputSchema.properties.a: a schema must be an object or a boolean',
    ],
    [{ type: 'object', anyOf: [] }, 'inputSchema.anyOf: must be a non-empty list of schemas'],
    [
      { type: 'object', minProperties: -1 },
      'inputSchema.minProperties: must be a non-negative integer',
    ],
  ])('reports %j', (schema, problem) => {
    expect(checkInputSchema(schema).join('\n')).toContain(problem);
  });
});
