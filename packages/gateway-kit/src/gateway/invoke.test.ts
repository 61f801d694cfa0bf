import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { defineAction } from '../actions/define-action.ts';
import { ErrorEnvelopeSchema, InvokeResponseSchema } from '../contract/index.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const client = createTestClient(fixtureGateway(), { token: TOKEN });

function expectEnvelope(body: unknown, code: string) {
  expect(v.is(ErrorEnvelopeSchema, body)).toBe(true);
  expect((body as { error: { code: string } }).error.code).toBe(code);
}

describe('POST /v1/invoke', () => {
  it('answers completed with the handler result, by action id', async () => {
    const { status, body } = await client.invoke(
      invokeBody('lookup-account', { accountId: 'acc_42' }),
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'completed',
      outputText: 'Account acc_42 is active.',
      data: { accountId: 'acc_42', plan: 'pro' },
      dataSchemaVersion: '1',
    });
    expect(v.is(InvokeResponseSchema, body)).toBe(true);
  });

  it('finds the action by name, and by id and name together', async () => {
    const byName = invokeBody(
      'x',
      { accountId: 'a' },
      { action: { name: 'lookupAccount', input: { accountId: 'a' } } },
    );
    delete (byName.action as { id?: string }).id;
    expect((await client.invoke(byName)).body).toMatchObject({ status: 'completed' });
    const both = invokeBody(
      'lookup-account',
      { accountId: 'a' },
      { action: { name: 'lookupAccount' } },
    );
    expect((await client.invoke(both)).body).toMatchObject({ status: 'completed' });
  });

  it('answers 422 invalid_request when id and name name different actions', async () => {
    const body = invokeBody(
      'lookup-account',
      { accountId: 'a' },
      { action: { name: 'misbehave' } },
    );
    const response = await client.invoke(body);
    expect(response.status).toBe(422);
    expectEnvelope(response.body, 'invalid_request');
  });

  it('answers 422 invalid_request when the action is named by neither id nor name', async () => {
    const body = invokeBody('lookup-account', { accountId: 'a' });
    delete (body.action as { id?: string }).id;
    const response = await client.invoke(body);
    expect(response.status).toBe(422);
    expectEnvelope(response.body, 'invalid_request');
  });

  it('answers 422 unknown_action for an action the gateway does not offer', async () => {
    const response = await client.invoke(invokeBody('delete-everything', {}));
    expect(response.status).toBe(422);
    expectEnvelope(response.body, 'unknown_action');
    expect(JSON.stringify(response.body)).not.toContain('delete-everything');
  });

  it.each([
    ['unknown top-level property', { extra: true }],
    ['unknown property in meeting', { meeting: { id: 'm', roomName: 'r', extra: 1 } }],
    ['unknown property in session', { session: { id: 's', mode: 'active', extra: 1 } }],
    ['unknown property in action', { action: { id: 'lookup-account', input: {}, extra: 1 } }],
    ['unknown property in callbacks', { callbacks: { extra: 'x' } }],
    ['organizationId at the top level', { organizationId: 'org_1' }],
    ['a session mode outside the contract', { session: { id: 's', mode: 'shouting' } }],
    ['a non-date deadline', { deadlineAt: 'tomorrow' }],
    ['a non-URI callback URL', { callbacks: { jobResultUrl: 'not a url' } }],
    ['an array as action.input', { action: { id: 'lookup-account', input: [] } }],
    ['null context', { context: null }],
    ['an array as callbacks', { callbacks: [] }],
    ['a missing invocationId', { invocationId: undefined }],
  ])('answers 422 invalid_request for %s', async (_, patch) => {
    const body = { ...invokeBody('lookup-account', { accountId: 'a' }), ...patch };
    const response = await client.invoke(body);
    expect(response.status).toBe(422);
    expectEnvelope(response.body, 'invalid_request');
    const issues = (response.body as { error: { details: { issues: { path: string }[] } } }).error
      .details.issues;
    expect(issues.length).toBeGreaterThan(0);
  });

  it('reports every shape issue with its path and never echoes values', async () => {
    const secret = 'sk_live_do_not_echo';
    const body = {
      ...invokeBody('lookup-account', {}),
      meeting: { id: 5, roomName: secret, leak: secret },
      traceId: 7,
    };
    const response = await client.invoke(body);
    expect(response.status).toBe(422);
    const issues = (
      response.body as { error: { details: { issues: { path: string; message: string }[] } } }
    ).error.details.issues;
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'meeting.id',
      'meeting.leak',
      'traceId',
    ]);
    expect(JSON.stringify(response.body)).not.toContain(secret);
  });

  it('answers 422 invalid_input with issue paths under action.input, never echoing the input', async () => {
    const response = await client.invoke(
      invokeBody('lookup-account', { accountId: 12345678, other: 'sekrit' }),
    );
    expect(response.status).toBe(422);
    expectEnvelope(response.body, 'invalid_input');
    const text = JSON.stringify(response.body);
    expect(text).toContain('action.input.accountId');
    expect(text).toContain('action.input.other');
    expect(text).not.toContain('12345678');
    expect(text).not.toContain('sekrit');
  });

  it('answers 200 rejected for a returned or thrown business refusal', async () => {
    const returned = await client.invoke(invokeBody('lookup-account', { accountId: 'closed' }));
    expect(returned.status).toBe(200);
    expect(returned.body).toEqual({
      status: 'rejected',
      error: {
        code: 'account_closed',
        message: 'The account is closed.',
        retryable: false,
        details: { since: '2024' },
      },
    });
    const thrown = await client.invoke(invokeBody('misbehave', { mode: 'throw-rejection' }));
    expect(thrown.body).toEqual({
      status: 'rejected',
      error: { code: 'not_today', message: 'Try tomorrow.', retryable: true },
    });
  });

  it('answers 500 internal_error for a crashing handler without leaking its message, and logs it', async () => {
    const logged: unknown[] = [];
    const gateway = fixtureGateway({
      logger: { error: (message, fields) => logged.push({ message, fields }) },
    });
    const response = await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('misbehave', { mode: 'throw' }),
    );
    expect(response.status).toBe(500);
    expectEnvelope(response.body, 'internal_error');
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
    expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts/);
    expect(logged).toHaveLength(1);
  });

  it('answers 500 when the handler returns something that is not an action result', async () => {
    for (const mode of ['bad-result', 'bigint']) {
      const response = await client.invoke(invokeBody('misbehave', { mode }));
      expect(response.status).toBe(500);
      expectEnvelope(response.body, 'internal_error');
    }
  });

  it('treats a handler returning nothing as completed with no fields', async () => {
    const response = await client.invoke(invokeBody('misbehave', { mode: 'void' }));
    expect(response.body).toEqual({ status: 'completed' });
  });

  it('answers a retryable rejected deadline_exceeded when the handler overruns its time budget, aborting its signal', async () => {
    const response = await client.invoke(invokeBody('misbehave', { mode: 'slow' }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'rejected',
      error: { code: 'deadline_exceeded', retryable: true },
    });
  });

  it('aborts the handler at deadlineAt', async () => {
    const deadlineAt = new Date(Date.now() + 50).toISOString();
    const started = Date.now();
    const response = await client.invoke(invokeBody('misbehave', { mode: 'slow' }, { deadlineAt }));
    expect(response.body).toMatchObject({
      status: 'rejected',
      error: { code: 'deadline_exceeded' },
    });
    expect(Date.now() - started).toBeLessThan(190); // well before the action's own 200 ms budget
  });

  it('does not run the handler when the deadline has already passed', async () => {
    const run = vi.fn(() => ({}));
    const spy = defineAction({ id: 'spy', input: v.object({}), run });
    const gateway = fixtureGateway({ actions: [spy] });
    const response = await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('spy', {}, { deadlineAt: '2000-01-01T00:00:00Z' }),
    );
    expect(response.body).toMatchObject({
      status: 'rejected',
      error: { code: 'deadline_exceeded', retryable: true },
    });
    expect(run).not.toHaveBeenCalled();
  });

  it('aborts the handler signal when the client goes away', async () => {
    // Runs until its signal aborts; its own deadline is far off, so only the client's leaving
    // can end it within the test.
    let running = (): void => {};
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    const waitForAbort = defineAction({
      id: 'wait-for-abort',
      input: v.strictObject({}),
      timeoutMs: 60_000,
      run: async (_input, { signal }) => {
        running();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return { outputText: 'too late' };
      },
    });
    const gateway = fixtureGateway({ actions: [waitForAbort] });
    const controller = new AbortController();
    const request = new Request('https://gateway.acme.example/v1/invoke', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(invokeBody('wait-for-abort', {})),
      signal: controller.signal,
    });
    const pending = gateway.fetch(request);
    await started;
    controller.abort();
    // The handler returned: its signal aborted, long before its own deadline (which would have
    // answered deadline_exceeded).
    const response = await pending;
    expect(await response.json()).toMatchObject({ status: 'completed', outputText: 'too late' });
  });
});
