import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type Type, type } from 'arktype';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { defineAction } from './define-action.ts';
import type { ActionInputSchema } from './input-schema.ts';

// One input shape, written with each schema library: the gateway must not tell them apart.
type Leaf =
  | { readonly kind: 'string'; readonly min: number; readonly max: number }
  | { readonly kind: 'number'; readonly min: number; readonly max: number }
  | { readonly kind: 'boolean' };
type Field = Leaf | { readonly kind: 'array'; readonly of: Leaf } | ObjectSpec;
interface Prop {
  readonly key: string;
  readonly optional: boolean;
  readonly field: Field;
}
interface ObjectSpec {
  readonly kind: 'object';
  readonly strict: boolean;
  readonly props: readonly Prop[];
}

const leaf: fc.Arbitrary<Leaf> = fc.oneof(
  fc
    // Bounds that each library spells alike: arktype leaves a trivial `minLength: 0` out, and
    // writes a range of one value as `const`.
    .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }))
    .map(([min, extra]) => ({ kind: 'string' as const, min, max: min + extra })),
  fc
    .tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 100 }))
    .map(([min, extra]) => ({ kind: 'number' as const, min, max: min + extra })),
  fc.constant({ kind: 'boolean' as const }),
);

const { object: objectSpec } = fc.letrec<{ object: ObjectSpec; field: Field }>((tie) => ({
  field: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    leaf.map((of) => ({ kind: 'array' as const, of })),
    tie('object'),
  ),
  object: fc.record({
    kind: fc.constant('object' as const),
    strict: fc.boolean(),
    props: fc.uniqueArray(
      fc.record({
        key: fc.constantFrom('accountId', 'limit', 'note', 'flags', 'owner', 'tags', 'when'),
        optional: fc.boolean(),
        field: tie('field'),
      }),
      { minLength: 1, maxLength: 4, selector: (prop) => prop.key },
    ),
  }),
}));

// --- the same spec in valibot, zod and arktype ---------------------------------------------

function valibotOf(field: Field): v.GenericSchema {
  switch (field.kind) {
    case 'string':
      return v.pipe(v.string(), v.minLength(field.min), v.maxLength(field.max));
    case 'number':
      return v.pipe(v.number(), v.minValue(field.min), v.maxValue(field.max));
    case 'boolean':
      return v.boolean();
    case 'array':
      return v.array(valibotOf(field.of));
    case 'object': {
      const entries = Object.fromEntries(
        field.props.map((p) => [
          p.key,
          p.optional ? v.optional(valibotOf(p.field)) : valibotOf(p.field),
        ]),
      );
      return field.strict ? v.strictObject(entries) : v.object(entries);
    }
  }
}

function zodOf(field: Field): z.ZodType {
  switch (field.kind) {
    case 'string':
      return z.string().min(field.min).max(field.max);
    case 'number':
      return z.number().min(field.min).max(field.max);
    case 'boolean':
      return z.boolean();
    case 'array':
      return z.array(zodOf(field.of));
    case 'object': {
      const shape = Object.fromEntries(
        field.props.map((p) => [p.key, p.optional ? zodOf(p.field).optional() : zodOf(p.field)]),
      );
      return field.strict ? z.strictObject(shape) : z.object(shape);
    }
  }
}

function arktypeOf(field: Field): Type {
  switch (field.kind) {
    case 'string':
      return type('string').atLeastLength(field.min).atMostLength(field.max) as Type;
    case 'number':
      return type('number').atLeast(field.min).atMost(field.max) as Type;
    case 'boolean':
      return type('boolean') as Type;
    case 'array':
      return arktypeOf(field.of).array() as Type;
    case 'object': {
      const definition = Object.fromEntries(
        field.props.map((p) => [p.optional ? `${p.key}?` : p.key, arktypeOf(p.field)]),
      );
      // Unknown keys: refused by strict objects, dropped by the others (as valibot and zod do).
      return type.raw(definition).onUndeclaredKey(field.strict ? 'reject' : 'delete') as Type;
    }
  }
}

const VENDORS = {
  valibot: (spec: ObjectSpec) => valibotOf(spec),
  'valibot-standard': (spec: ObjectSpec) => toStandardJsonSchema(valibotOf(spec)),
  zod: (spec: ObjectSpec) => zodOf(spec),
  arktype: (spec: ObjectSpec) => arktypeOf(spec),
} as const;
const VENDOR_NAMES = Object.keys(VENDORS) as (keyof typeof VENDORS)[];

/** A gateway with the same echoing action written once per vendor (`probe-<vendor>`). */
function gatewayFor(spec: ObjectSpec) {
  const actions = VENDOR_NAMES.map((vendor) =>
    defineAction({
      id: `probe-${vendor}`,
      input: VENDORS[vendor](spec) as ActionInputSchema,
      run: (input) => ({ outputText: 'checked', data: { input } }),
    }),
  );
  const gateway = createGateway({
    gateway: { id: 'probe', name: 'Probe', url: 'https://gateway.probe.example' },
    version: '2026-11-01',
    actions,
    auth: { tokens: ['probe-token'] },
  });
  return { gateway, client: createTestClient(gateway, { token: 'probe-token' }) };
}

// --- inputs: valid ones, then one mutation that may break them ------------------------------

function validValue(field: Field): fc.Arbitrary<unknown> {
  switch (field.kind) {
    case 'string':
      return fc.string({ minLength: field.min, maxLength: field.max });
    case 'number':
      return fc.oneof(
        fc.integer({ min: field.min, max: field.max }),
        fc.double({ min: field.min, max: field.max, noNaN: true }).map((n) => n + 0), // no -0
      );
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(field.of), { maxLength: 3 });
    case 'object':
      return fc.record(Object.fromEntries(field.props.map((p) => [p.key, validValue(p.field)])), {
        requiredKeys: field.props.filter((p) => !p.optional).map((p) => p.key),
      });
  }
}

/** What bad inputs carry: no answer may ever quote it. */
const MARKER = 'SECRET-MARKER-7f3a';

type Mutation = 'none' | 'wrong-type' | 'drop' | 'unknown-key' | 'too-long';

/** Applies `mutation` at the `pick`-th place of `value` (a valid value of `spec`). */
function mutate(
  spec: ObjectSpec,
  value: Record<string, unknown>,
  mutation: Mutation,
  pick: number,
) {
  const places: Array<{ parent: Record<string, unknown>; prop: Prop; spec: ObjectSpec }> = [];
  const collect = (s: ObjectSpec, object: Record<string, unknown>): void => {
    for (const prop of s.props) {
      places.push({ parent: object, prop, spec: s });
      const child = object[prop.key];
      if (prop.field.kind === 'object' && child && typeof child === 'object') {
        collect(prop.field, child as Record<string, unknown>);
      }
    }
  };
  collect(spec, value);
  const place = places[pick % places.length]!;
  const { parent, prop } = place;
  switch (mutation) {
    case 'wrong-type':
      parent[prop.key] = prop.field.kind === 'string' ? 12_345 : MARKER;
      break;
    case 'drop':
      delete parent[prop.key];
      break;
    case 'unknown-key':
      parent[`${prop.key}Extra`] = MARKER;
      break;
    case 'too-long':
      if (prop.field.kind === 'string')
        parent[prop.key] = `${MARKER}-${'x'.repeat(prop.field.max)}`;
      break;
    case 'none':
      break;
  }
  return value;
}

const cases = objectSpec.chain((spec) =>
  fc.record({
    spec: fc.constant(spec),
    value: validValue(spec) as fc.Arbitrary<Record<string, unknown>>,
    mutation: fc.constantFrom<Mutation>('none', 'wrong-type', 'drop', 'unknown-key', 'too-long'),
    pick: fc.nat(),
  }),
);

/**
 * JSON Schema with keys and `required` lists in one order, and no empty `required` (valibot writes
 * `required: []`, the others leave it out; both require nothing): equal means equivalent.
 */
function canonical(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(canonical);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'required' && Array.isArray(value) && value.length === 0))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, value]) => [
        key,
        key === 'required' ? [...(value as string[])].sort() : canonical(value),
      ]),
  );
}

describe('the same action written with valibot, zod and arktype (properties)', () => {
  it('publishes equivalent manifest JSON Schema', () => {
    fc.assert(
      fc.property(objectSpec, (spec) => {
        const { gateway } = gatewayFor(spec);
        const [first, ...others] = gateway.manifest.actions.map((a) => canonical(a.inputSchema));
        expect(first).toMatchObject({
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
        });
        for (const other of others) expect(other).toEqual(first);
      }),
      { numRuns: 100 },
    );
  }, 30_000);

  it('answers the same input alike: the same completed answer, or the same 422 paths that quote no input', async () => {
    let invalid = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ spec, value, mutation, pick }) => {
        const input = mutate(spec, structuredClone(value), mutation, pick);
        const { client } = gatewayFor(spec);
        const answers: Array<{ vendor: string; status: number; body: unknown }> = [];
        for (const vendor of VENDOR_NAMES) {
          const { status, body } = await client.invoke(invokeBody(`probe-${vendor}`, input));
          answers.push({ vendor, status, body });
        }
        const [reference, ...others] = answers;
        if (reference!.status === 200) {
          expect(reference!.body).toMatchObject({ status: 'completed', outputText: 'checked' });
          for (const other of others) expect(other).toEqual({ ...reference, vendor: other.vendor });
          return;
        }
        invalid += 1;
        const shapeOf = (answer: (typeof answers)[number]) => {
          const { error } = answer.body as {
            error: { code: string; details: { issues: { path: string; message: string }[] } };
          };
          for (const issue of error.details.issues) {
            expect(issue.message.length).toBeGreaterThan(0);
            expect(issue.message).not.toContain('SECRET');
          }
          return {
            status: answer.status,
            code: error.code,
            keys: Object.keys(error.details),
            paths: error.details.issues.map((issue) => issue.path).sort(),
          };
        };
        const expected = shapeOf(reference!);
        expect(expected).toMatchObject({ status: 422, code: 'invalid_input', keys: ['issues'] });
        for (const other of others)
          expect({ vendor: other.vendor, ...shapeOf(other) }).toEqual({
            vendor: other.vendor,
            ...expected,
          });
      }),
      { numRuns: 150 },
    );
    // The mutations do break inputs: the property did compare 422 answers.
    expect(invalid).toBeGreaterThan(30);
  }, 60_000);
});
