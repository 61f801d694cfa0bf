import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ActionResultSchema, parseActionResult } from './action-result.ts';

/** The same output as the schema, key order included, or the value left to the schema. */
function expectAgreement(value: unknown): void {
  const fast = parseActionResult(value);
  if (fast === undefined) return;
  const slow = v.safeParse(ActionResultSchema, value);
  expect(slow.success, 'accepted a result the schema refuses').toBe(true);
  expect(fast).toStrictEqual(slow.output);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.output));
  // `data` is checked, not copied: the action's own object is serialised.
  if (slow.success && slow.output.data !== undefined) expect(fast.data).toBe(slow.output.data);
}

const KEYS = ['outputText', 'machineSummary', 'dataSchemaVersion', 'data', 'status', 'constructor'];
const VALUES: readonly unknown[] = [
  '',
  'text',
  0,
  null,
  undefined,
  [],
  {},
  Object.create(null),
  new Date(0),
  new Map(),
  { nested: [1] },
];

describe('parseActionResult', () => {
  it('gives the schema output for results in any key order, and takes the fast path', () => {
    const result = { data: { status: 'active' }, outputText: 'Account is active.' };
    const fast = parseActionResult(result);
    expect(fast).toBeDefined();
    expect(Object.keys(fast ?? {})).toEqual(['outputText', 'data']);
    expectAgreement(result);
    expect(parseActionResult({})).toEqual({});
  });

  it('agrees with the schema on every field set to each edge value', () => {
    let fastPath = 0;
    for (const key of KEYS)
      for (const value of VALUES) {
        for (const base of [{}, { outputText: 'x' }, { data: {}, machineSummary: 's' }]) {
          const result = { ...base, [key]: value };
          expectAgreement(result);
          if (parseActionResult(result)) fastPath += 1;
        }
      }
    expect(fastPath).toBeGreaterThan(10);
    for (const value of VALUES) expectAgreement(value);
  });

  it('never accepts what the schema refuses (generated results)', () => {
    const result = fc.dictionary(
      fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })),
      fc.oneof(fc.constantFrom(...VALUES), fc.jsonValue({ maxDepth: 2 })),
      { maxKeys: 4 },
    );
    fc.assert(fc.property(result, expectAgreement), { numRuns: 2000 });
  });
});
