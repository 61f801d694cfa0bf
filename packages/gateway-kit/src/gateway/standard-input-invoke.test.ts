import { type } from 'arktype';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAction } from '../actions/define-action.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { createGateway } from './create-gateway.ts';

const TAKEN = new Set(['acme']);

const reserveName = defineAction({
  id: 'reserve-name',
  // An async refinement: zod's validate returns a promise, which the gateway awaits.
  input: z.strictObject({
    name: z.string().refine(async (name) => !TAKEN.has(name), 'That name is taken'),
    seats: z.string().transform(Number).pipe(z.int().min(1)),
  }),
  run: ({ name, seats }) => ({ outputText: `Reserved ${name}`, data: { seats } }),
});

const countWords = defineAction({
  id: 'count-words',
  input: type({ text: 'string', 'language?': "'en' | 'de'" }),
  run: ({ text }) => ({ data: { words: text.split(/\s+/).filter(Boolean).length } }),
});

const gateway = createGateway({
  gateway: { id: 'std', name: 'Standard inputs', url: 'https://gateway.std.example' },
  version: '2026-11-01',
  actions: [reserveName, countWords],
  auth: { tokens: ['std-token'] },
});
const client = createTestClient(gateway, { token: 'std-token' });

describe('POST /v1/invoke with Standard Schema inputs', () => {
  it("runs with the schema's output after an async validation", async () => {
    const { status, body } = await client.invoke(
      invokeBody('reserve-name', { name: 'globex', seats: '3' }),
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'completed',
      outputText: 'Reserved globex',
      data: { seats: 3 },
    });
  });

  it('answers 422 invalid_input with the async refinement message', async () => {
    const { status, body } = await client.invoke(
      invokeBody('reserve-name', { name: 'acme', seats: '0' }),
    );
    expect(status).toBe(422);
    expect(body).toMatchObject({
      error: {
        code: 'invalid_input',
        retryable: false,
        details: {
          // zod reports the async refinement after the sync checks.
          issues: [
            { path: 'action.input.seats', message: 'Too small: expected number to be >=1' },
            { path: 'action.input.name', message: 'That name is taken' },
          ],
        },
      },
    });
  });

  it('answers arktype literal mismatches without quoting the value sent', async () => {
    const sent = 'klingon-secret-dialect';
    const { status, body } = await client.invoke(
      invokeBody('count-words', { text: 'a b', language: sent }),
    );
    expect(status).toBe(422);
    expect(body).toMatchObject({
      error: {
        code: 'invalid_input',
        details: { issues: [{ path: 'action.input.language', message: 'Must be "de" or "en"' }] },
      },
    });
    expect(JSON.stringify(body)).not.toContain(sent);
    expect((await client.invoke(invokeBody('count-words', { text: 'a b c' }))).body).toEqual({
      status: 'completed',
      data: { words: 3 },
    });
  });
});
