import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  CancelResponseSchema,
  ErrorEnvelopeSchema,
  InvokeRequestSchema,
  InvokeResponseSchema,
  JobSchema,
} from './index.ts';

const id = fc.string({ minLength: 1, maxLength: 20 });
const jsonObject = fc.dictionary(
  fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 4 },
);
const validRequest = fc.record(
  {
    invocationId: id,
    idempotencyKey: id,
    traceId: fc.string({ maxLength: 20 }),
    deadlineAt: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    meeting: fc.record({ id, roomName: fc.string({ maxLength: 20 }) }),
    session: fc.record({ id, mode: fc.constantFrom('active', 'passive', 'listening') }),
    action: fc.record({ input: jsonObject, id, name: id }, { requiredKeys: ['input'] }),
    context: jsonObject,
    callbacks: fc.record(
      {
        jobResultUrl: fc.webUrl(),
        approvalUrl: fc.webUrl(),
        authorization: fc.string({ maxLength: 20 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['invocationId', 'meeting', 'session', 'action', 'context', 'callbacks'] },
);

describe('InvokeRequestSchema', () => {
  /** The smallest request the contract allows. */
  const request = {
    invocationId: 'i',
    meeting: { id: 'm', roomName: 'r' },
    session: { id: 's', mode: 'passive' },
    action: { id: 'a', input: {} },
    context: {},
    callbacks: {},
  };

  it('accepts every request the contract allows (property)', () => {
    fc.assert(
      fc.property(validRequest, (request) => {
        expect(v.is(InvokeRequestSchema, request)).toBe(true);
      }),
    );
  });

  it('rejects an unknown property at the top level and in meeting, session, action and callbacks (property)', () => {
    const strictPlaces = ['', 'meeting', 'session', 'action', 'callbacks'] as const;
    const known: Record<(typeof strictPlaces)[number], string[]> = {
      '': [
        'invocationId',
        'idempotencyKey',
        'traceId',
        'deadlineAt',
        'meeting',
        'session',
        'action',
        'context',
        'callbacks',
      ],
      meeting: ['id', 'roomName'],
      session: ['id', 'mode'],
      action: ['input', 'id', 'name'],
      callbacks: ['jobResultUrl', 'approvalUrl', 'authorization'],
    };
    fc.assert(
      fc.property(
        validRequest,
        fc.constantFrom(...strictPlaces),
        fc.string({ minLength: 1, maxLength: 10 }),
        (request, place, key) => {
          fc.pre(!known[place].includes(key) && key !== '__proto__');
          const copy = structuredClone(request) as unknown as Record<
            string,
            Record<string, unknown>
          >;
          const target = place === '' ? copy : copy[place]!;
          target[key] = 'x';
          expect(v.is(InvokeRequestSchema, copy)).toBe(false);
        },
      ),
    );
  });

  it('accepts an idempotencyKey of 1 to 1024 characters only', () => {
    expect(v.is(InvokeRequestSchema, { ...request, idempotencyKey: 'k' })).toBe(true);
    expect(v.is(InvokeRequestSchema, { ...request, idempotencyKey: 'k'.repeat(1024) })).toBe(true);
    expect(v.is(InvokeRequestSchema, { ...request, idempotencyKey: '' })).toBe(false);
    expect(v.is(InvokeRequestSchema, { ...request, idempotencyKey: 'k'.repeat(1025) })).toBe(false);
  });

  it('rejects an array where the contract names an object', () => {
    for (const place of ['meeting', 'session', 'action', 'context', 'callbacks'] as const) {
      const result = v.safeParse(InvokeRequestSchema, { ...request, [place]: [] });
      expect(result.success, place).toBe(false);
      expect(result.issues?.[0]?.message, place).toBe('Expected Object');
    }
    expect(v.is(InvokeRequestSchema, [])).toBe(false);
  });

  it('allows free-form properties in action.input and context', () => {
    const freeForm = {
      ...request,
      action: { id: 'a', input: { anything: { nested: [1, 2] } } },
      context: { locale: 'de-DE', extra: true },
    };
    expect(v.is(InvokeRequestSchema, freeForm)).toBe(true);
  });
});

describe('response schemas', () => {
  it('accept the four invoke responses and reject unknown properties', () => {
    const valid = [
      { status: 'completed' },
      {
        status: 'completed',
        outputText: 'a',
        machineSummary: 'b',
        dataSchemaVersion: '1',
        data: { x: 1 },
      },
      {
        status: 'accepted',
        job: { jobId: 'j', status: 'queued', statusUrl: 'https://g.example/v1/jobs/j' },
      },
      {
        status: 'approval_required',
        approval: { approvalId: 'a', reason: 'r', expiresAt: '2030-01-01T00:00:00Z' },
      },
      { status: 'rejected', error: { code: 'c', message: 'm', retryable: false } },
    ];
    for (const response of valid) {
      expect(v.is(InvokeResponseSchema, response)).toBe(true);
      expect(v.is(InvokeResponseSchema, { ...response, extra: 1 })).toBe(false);
    }
    expect(
      v.is(InvokeResponseSchema, { status: 'accepted', job: { jobId: 'j', status: 'completed' } }),
    ).toBe(false);
    expect(v.is(InvokeResponseSchema, { status: 'done' })).toBe(false);
  });

  it('accept the error envelope with nothing but error', () => {
    const error = { code: 'c', message: 'm', retryable: true, details: { a: 1 } };
    expect(v.is(ErrorEnvelopeSchema, { error })).toBe(true);
    expect(v.is(ErrorEnvelopeSchema, { error, status: 422 })).toBe(false);
    expect(v.is(ErrorEnvelopeSchema, { error: { code: 'c', message: 'm' } })).toBe(false);
  });

  it('accept a job resource and the cancel response', () => {
    const job = {
      jobId: 'j',
      invocationId: 'i',
      status: 'cancelled',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      actionId: 'a',
      actionName: 'a',
    };
    expect(v.is(JobSchema, job)).toBe(true);
    expect(v.is(CancelResponseSchema, { job })).toBe(true);
    expect(v.is(CancelResponseSchema, { job, extra: 1 })).toBe(false);
    expect(v.is(JobSchema, { ...job, status: 'paused' })).toBe(false);
  });
});
