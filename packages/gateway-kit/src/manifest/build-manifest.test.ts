import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAction } from '../actions/define-action.ts';
import type { ActionInputSchema } from '../actions/input-schema.ts';
import { createGateway } from '../gateway/create-gateway.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { inputJsonSchema } from './build-manifest.ts';

const actionWith = (input: unknown) =>
  defineAction({ id: 'probe', input: input as ActionInputSchema, run: () => ({}) });

const gatewayWith = (input: unknown) =>
  createGateway({
    gateway: { id: 'probe', name: 'Probe' },
    actions: [actionWith(input)],
    auth: { tokens: ['probe-token'] },
  });

const EXPECTED = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { accountId: { type: 'string', minLength: 3 } },
  required: ['accountId'],
  additionalProperties: false,
};

describe('inputJsonSchema', () => {
  it("publishes each vendor's own draft-07 conversion of the input (input mode, object root)", () => {
    const valibot = v.strictObject({ accountId: v.pipe(v.string(), v.minLength(3)) });
    expect(inputJsonSchema(actionWith(valibot))).toEqual(EXPECTED);
    expect(inputJsonSchema(actionWith(toStandardJsonSchema(valibot)))).toEqual(EXPECTED);
    expect(inputJsonSchema(actionWith(z.strictObject({ accountId: z.string().min(3) })))).toEqual(
      EXPECTED,
    );
    expect(inputJsonSchema(actionWith(type({ accountId: 'string >= 3', '+': 'reject' })))).toEqual(
      EXPECTED,
    );
  });

  it('describes what the caller sends: defaults are optional, transforms show their input', () => {
    const schema = inputJsonSchema(
      actionWith(z.object({ amount: z.string().transform(Number), page: z.number().default(1) })),
    );
    expect(schema).toMatchObject({
      properties: { amount: { type: 'string' }, page: { type: 'number', default: 1 } },
      required: ['amount'],
    });
  });

  it('fails createGateway with a GatewayConfigError naming the action for unusable schemas', () => {
    const cases: Array<[unknown, RegExp]> = [
      [z.string(), /must describe an object \(got "string"\)/],
      [type('string[]'), /must describe an object \(got "array"\)/],
      [z.object({ when: z.date() }), /cannot be expressed as JSON Schema/],
      [z.object({ id: z.bigint() }), /cannot be expressed as JSON Schema/],
      [{ accountId: 'string' }, /not a schema/],
      [
        // Standard Schema without Standard JSON Schema (e.g. zod before 4.2).
        { '~standard': { version: 1, vendor: 'old', validate: (value: unknown) => ({ value }) } },
        /\(old\) cannot be published as JSON Schema: it implements Standard Schema but not Standard JSON Schema/,
      ],
    ];
    for (const [input, message] of cases) {
      expect(() => gatewayWith(input)).toThrow(GatewayConfigError);
      expect(() => gatewayWith(input)).toThrow(/^Action "probe": /);
      expect(() => gatewayWith(input)).toThrow(message);
    }
  });

  it('serves a plain JSON copy: later changes to what the vendor returned do not leak in', () => {
    const shared = { type: 'object', properties: {} as Record<string, unknown> };
    const input = {
      '~standard': {
        version: 1,
        vendor: 'mutable',
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: () => shared, output: () => shared },
      },
    };
    const gateway = gatewayWith(input);
    shared.properties.late = { type: 'string' };
    expect(gateway.manifest.actions[0]!.inputSchema).toEqual({ type: 'object', properties: {} });
  });
});
