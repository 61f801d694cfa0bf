import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { InvokeRequestSchema } from './invoke-request.ts';
import { parseInvokeRequest } from './parse-invoke-request.ts';

const valid = {
  invocationId: 'inv_1',
  meeting: { id: 'mtg_1', roomName: 'Weekly review' },
  session: { id: 'sess_1', mode: 'active' },
  action: { id: 'lookup-account', input: { accountId: 'acc_1', fields: ['status'] } },
  context: { locale: 'en-GB' },
  callbacks: {},
};

/** The schema's verdict: its output, or `undefined` when it refuses. */
function bySchema(value: unknown): unknown {
  const parsed = v.safeParse(InvokeRequestSchema, value);
  return parsed.success ? parsed.output : undefined;
}

/** Agrees with the schema: the same output, key order included, or leaves the body to it. */
function expectAgreement(value: unknown): void {
  const fast = parseInvokeRequest(value);
  if (fast === undefined) return;
  const slow = bySchema(value);
  expect(slow, 'accepted a body the schema refuses').toBeDefined();
  expect(fast).toStrictEqual(slow);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
}

const EDGY_STRINGS = [
  '',
  'x'.repeat(1024),
  'x'.repeat(1025),
  'x'.repeat(2049),
  'active',
  'passive',
  'listening',
  'ACTIVE',
  '2030-01-01T00:00:00Z',
  '2030-01-01t00:00:00.123+02:00',
  '2030-02-30T00:00:00Z',
  '2030-01-01 00:00:00Z',
  'https://hooks.example/jobs',
  'not a url',
  'Bearer abc',
  'line\nbreak',
];
const EDGY_VALUES: readonly unknown[] = [
  ...EDGY_STRINGS,
  undefined,
  null,
  0,
  true,
  [],
  {},
  { constructor: 1 },
  { prototype: 'x' },
  new Date(0),
];
const PATHS = ['', 'meeting', 'session', 'action', 'action.input', 'context', 'callbacks'];
const KEYS = [
  'invocationId',
  'idempotencyKey',
  'traceId',
  'deadlineAt',
  'meeting',
  'session',
  'action',
  'context',
  'callbacks',
  'id',
  'name',
  'input',
  'mode',
  'roomName',
  'jobResultUrl',
  'approvalUrl',
  'authorization',
  'constructor',
  'prototype',
  'toString',
];

interface Edit {
  readonly path: string;
  readonly key: string;
  readonly value: unknown;
  readonly drop: boolean;
}

/** A copy of the valid body with the edits made. */
function edited(edits: readonly Edit[]): Record<string, unknown> {
  const body = structuredClone(valid) as Record<string, unknown>;
  for (const { path, key, value, drop } of edits) {
    let target: unknown = body;
    for (const segment of path.split('.').filter(Boolean))
      target = (target as Record<string, unknown> | undefined)?.[segment];
    if (typeof target !== 'object' || target === null) continue;
    if (drop) delete (target as Record<string, unknown>)[key];
    // As JSON.parse makes it, `constructor` and `prototype` included: an own, enumerable property.
    else
      Object.defineProperty(target, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return body;
}

const edgyValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(...EDGY_VALUES),
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);
/** A valid body with a few keys set, replaced or dropped anywhere in it. */
const nearlyValid = fc
  .array(
    fc.record({
      path: fc.constantFrom(...PATHS),
      key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...KEYS)),
      value: edgyValue,
      drop: fc.boolean(),
    }),
    { maxLength: 3 },
  )
  .map(edited);

describe('parseInvokeRequest', () => {
  it("gives the schema's output for the common body (the fast path is taken)", () => {
    const fast = parseInvokeRequest(JSON.parse(JSON.stringify(valid)));
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(bySchema(valid));
  });

  it('takes the fast path with every optional field and callbacks set, in the schema key order', () => {
    const full = {
      callbacks: { authorization: 'Bearer cb', jobResultUrl: 'https://hooks.example/jobs' },
      context: {},
      action: { name: 'Lookup', input: {}, id: 'lookup-account' },
      session: { mode: 'listening', id: '' },
      meeting: { roomName: '', id: 'm' },
      deadlineAt: '2030-01-01T00:00:00.5+01:00',
      traceId: 't',
      idempotencyKey: 'k',
      invocationId: 'i',
    };
    const fast = parseInvokeRequest(full);
    expect(fast).toBeDefined();
    expect(JSON.stringify(fast)).toBe(JSON.stringify(bySchema(full)));
  });

  it('leaves to the schema the free-form objects it would change (constructor, prototype keys)', () => {
    for (const key of ['constructor', 'prototype']) {
      const body = edited([{ path: 'context', key, value: 1, drop: false }]);
      expect(parseInvokeRequest(body)).toBeUndefined();
      expect(bySchema(body)).toMatchObject({ context: { locale: 'en-GB' } });
    }
  });

  it('agrees with the schema on every known key set to each edge value, or dropped, anywhere', () => {
    let fastPath = 0;
    for (const path of PATHS)
      for (const key of KEYS) {
        for (const value of EDGY_VALUES) {
          const body = edited([{ path, key, value, drop: false }]);
          expectAgreement(body);
          if (parseInvokeRequest(body)) fastPath += 1;
        }
        expectAgreement(edited([{ path, key, value: undefined, drop: true }]));
      }
    // Not vacuous: many of these bodies are valid and take the fast path.
    expect(fastPath).toBeGreaterThan(100);
  });

  it('never accepts what the schema refuses, and agrees with it on what it accepts', () => {
    fc.assert(fc.property(nearlyValid, expectAgreement), { numRuns: 2000 });
  });

  it('agrees with the schema on arbitrary JSON', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), expectAgreement), { numRuns: 500 });
  });
});
