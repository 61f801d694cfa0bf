import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { ErrorEnvelopeSchema, InvokeResponseSchema } from '../contract/index.ts';
import { invokeBody } from '../testing/index.ts';

const gateway = fixtureGateway();

async function send(body: string | Uint8Array): Promise<{ status: number; json: unknown }> {
  const response = await gateway.fetch(
    new Request('https://gateway.acme.example/v1/invoke', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body as BodyInit,
    }),
  );
  return { status: response.status, json: await response.json() };
}

/** The contract's promise for any body: a valid 200 invoke response, or a non-200 envelope. */
function expectContractAnswer({ status, json }: { status: number; json: unknown }) {
  if (status === 200) {
    expect(v.is(InvokeResponseSchema, json)).toBe(true);
  } else {
    expect([400, 413, 422]).toContain(status);
    expect(v.is(ErrorEnvelopeSchema, json)).toBe(true);
  }
}

// Bodies close to valid ones find more paths than random JSON alone.
const nearlyValidBody = fc
  .record({
    base: fc.constantFrom(
      invokeBody('lookup-account', { accountId: 'acc_1' }),
      invokeBody('lookup-account', { accountId: 'closed' }),
      invokeBody('misbehave', { mode: 'throw-rejection' }),
      invokeBody('misbehave', { mode: 'void' }),
    ),
    path: fc.constantFrom(
      '',
      'meeting',
      'session',
      'action',
      'action.input',
      'callbacks',
      'context',
    ),
    key: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('id', 'mode', 'input', 'accountId', 'name'),
    ),
    value: fc.jsonValue({ maxDepth: 3 }),
    drop: fc.boolean(),
  })
  .map(({ base, path, key, value, drop }) => {
    const body = structuredClone(base) as unknown as Record<string, unknown>;
    let target = body;
    for (const segment of path.split('.').filter(Boolean)) {
      const next = target[segment];
      if (typeof next !== 'object' || next === null) return body;
      target = next as Record<string, unknown>;
    }
    if (drop) delete target[key];
    else target[key] = value;
    return body;
  });

describe('POST /v1/invoke for any body (properties)', () => {
  it('answers any JSON value with a contract answer, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => {
        expectContractAnswer(await send(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('answers mutated valid bodies with a contract answer, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(nearlyValidBody, async (body) => {
        expectContractAnswer(await send(JSON.stringify(body)));
      }),
      { numRuns: 500 },
    );
  });

  it('answers arbitrary bytes with a contract answer, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 256 }), async (bytes) => {
        expectContractAnswer(await send(bytes));
      }),
      { numRuns: 200 },
    );
  });
});
