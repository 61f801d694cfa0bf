import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asyncGateway, TOKEN } from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import { fixtureGateway } from '../../test/fixture-gateway.ts';
import type { Gateway } from '../gateway/create-gateway.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import type { GatewayHookName, GatewayHooks } from './hooks.ts';

type Recorded = { hook: GatewayHookName; event: Record<string, unknown> };

/** Hooks that record every event, in order. */
function recordingHooks(): { hooks: GatewayHooks; events: Recorded[] } {
  const events: Recorded[] = [];
  const record =
    (hook: GatewayHookName) =>
    (event: object): void => {
      events.push({ hook, event: event as Record<string, unknown> });
    };
  return {
    events,
    hooks: {
      onInvokeReceived: record('onInvokeReceived'),
      onInvokeAnswered: record('onInvokeAnswered'),
      onJobStateChanged: record('onJobStateChanged'),
      onApprovalRequested: record('onApprovalRequested'),
      onApprovalDecided: record('onApprovalDecided'),
      onCallbackDelivered: record('onCallbackDelivered'),
      onCallbackFailed: record('onCallbackFailed'),
    },
  };
}

let gateway: Gateway | undefined;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
beforeEach(async () => {
  receiver = await startCallbackReceiver();
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await receiver.close();
});

const CALLBACK_CREDENTIAL = 'Bearer callback-credential-never-in-events';
const withCallbacks = () => ({
  callbacks: {
    jobResultUrl: `${receiver.url}/jobs?sig=query-secret`,
    approvalUrl: `${receiver.url}/approvals`,
    authorization: CALLBACK_CREDENTIAL,
  },
});

describe('lifecycle hooks', () => {
  it('a sync invoke: received, then answered with the outcome, ids and duration — no input', async () => {
    const { hooks, events } = recordingHooks();
    gateway = fixtureGateway({ hooks });
    const client = createTestClient(gateway, { token: TOKEN });
    const body = invokeBody(
      'lookup-account',
      { accountId: 'acc_input_marker' },
      { traceId: 't-1' },
    );
    await client.invoke(body);

    expect(events.map((e) => e.hook)).toEqual(['onInvokeReceived', 'onInvokeAnswered']);
    const ids = {
      invocationId: body.invocationId,
      actionId: 'lookup-account',
      principalId: 'default',
      traceId: 't-1',
    };
    expect(events[0]!.event).toEqual({ ...ids, actionName: 'lookupAccount' });
    expect(events[1]!.event).toEqual({
      ...ids,
      actionName: 'lookupAccount',
      outcome: 'completed',
      httpStatus: 200,
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(events)).not.toContain('acc_input_marker');
  });

  it('answers of every kind: rejected and error with their code', async () => {
    const { hooks, events } = recordingHooks();
    gateway = fixtureGateway({ hooks });
    const client = createTestClient(gateway, { token: TOKEN });
    await client.invoke(invokeBody('lookup-account', { accountId: 'closed' }));
    await client.invoke(invokeBody('lookup-account', { accountId: 42 }));
    await client.invoke(invokeBody('no-such-action', {}));
    const answered = events.filter((e) => e.hook === 'onInvokeAnswered').map((e) => e.event);
    expect(answered).toMatchObject([
      { outcome: 'rejected', errorCode: 'account_closed', httpStatus: 200 },
      { outcome: 'error', errorCode: 'invalid_input', httpStatus: 422 },
    ]);
    // An invoke naming no known action is not "received": neither event fires for it.
    expect(events.filter((e) => e.hook === 'onInvokeReceived')).toHaveLength(2);
  });

  it('an async invoke: accepted, job queued → running → completed, callback delivered', async () => {
    const { hooks, events } = recordingHooks();
    gateway = asyncGateway({ hooks });
    const client = createTestClient(gateway, { token: TOKEN });
    const body = invokeBody('generate-report', { topic: 'topic_input_marker' }, withCallbacks());
    const answer = await client.invoke(body);
    const jobId = (answer.body as { job: { jobId: string } }).job.jobId;
    await gateway.idle();

    const ids = {
      invocationId: body.invocationId,
      actionId: 'generate-report',
      principalId: 'default',
    };
    expect(events.find((e) => e.hook === 'onInvokeAnswered')!.event).toMatchObject({
      ...ids,
      outcome: 'accepted',
      jobId,
    });
    expect(events.filter((e) => e.hook === 'onJobStateChanged').map((e) => e.event)).toEqual([
      { ...ids, jobId, status: 'queued' },
      { ...ids, jobId, status: 'running' },
      { ...ids, jobId, status: 'completed' },
    ]);
    expect(events.find((e) => e.hook === 'onCallbackDelivered')!.event).toEqual({
      ...ids,
      kind: 'job_result',
      jobId,
      webhookId: `job_${jobId}_completed`,
      target: receiver.url,
      attempts: 1,
      httpStatus: 204,
    });
    const all = JSON.stringify(events);
    for (const secret of ['topic_input_marker', 'callback-credential', 'query-secret', TOKEN])
      expect(all).not.toContain(secret);
  });

  it('a failed callback: onCallbackFailed with the reason and attempts', async () => {
    const { hooks, events } = recordingHooks();
    gateway = asyncGateway({
      hooks,
      callbacks: { urlPolicy: { allowInsecureLoopback: true }, maxAttempts: 1 },
    });
    const client = createTestClient(gateway, { token: TOKEN });
    await receiver.close();
    await client.invoke(invokeBody('generate-report', { topic: 'x' }, withCallbacks()));
    await gateway.idle();
    expect(events.find((e) => e.hook === 'onCallbackFailed')!.event).toMatchObject({
      kind: 'job_result',
      attempts: 1,
      reason: 'exhausted',
      target: receiver.url,
    });
    receiver = await startCallbackReceiver();
  });

  it('onApprovalRequested: once per approval, before the answer leaves; decided and expired follow', async () => {
    let now = Date.now();
    const requested: Array<{ approvalId: string; input: unknown }> = [];
    const { hooks, events } = recordingHooks();
    gateway = asyncGateway({
      now: () => now,
      approvals: { ttlMs: 60_000 },
      hooks: {
        ...hooks,
        onApprovalRequested: (event) => {
          hooks.onApprovalRequested?.(event);
          requested.push({ approvalId: event.approvalId, input: event.validatedInput() });
        },
      },
    });
    const client = createTestClient(gateway, { token: TOKEN });
    const body = invokeBody(
      'issue-refund',
      { orderId: 'ord_1', amountCents: 1250 },
      { idempotencyKey: 'refund-1', ...withCallbacks() },
    );
    const answer = await client.invoke(body);
    const approvalId = (answer.body as { approval: { approvalId: string } }).approval.approvalId;
    // Already fired when the answer arrived, with the id the answer carries.
    expect(requested).toEqual([{ approvalId, input: { orderId: 'ord_1', amountCents: 1250 } }]);
    expect(events.find((e) => e.hook === 'onApprovalRequested')!.event).toMatchObject({
      approvalId,
      invocationId: body.invocationId,
      actionId: 'issue-refund',
      principalId: 'default',
      reason: expect.stringContaining('Issue a refund'),
    });
    // A replay under the same idempotency key is the same approval: no second event.
    await client.invoke(body);
    expect(requested).toHaveLength(1);

    const { job } = await gateway.approvals.decide(approvalId, {
      approved: true,
      decidedBy: 'ops',
    });
    await gateway.idle();
    expect(events.find((e) => e.hook === 'onApprovalDecided')!.event).toEqual({
      approvalId,
      invocationId: body.invocationId,
      actionId: 'issue-refund',
      principalId: 'default',
      status: 'approved',
      decidedBy: 'ops',
      jobId: job!.jobId,
    });
    expect(
      events.find((e) => e.hook === 'onCallbackDelivered' && e.event.kind === 'approval')!.event,
    ).toMatchObject({ approvalId, webhookId: `approval_${approvalId}_approved` });

    const second = await client.invoke(
      invokeBody('issue-refund', { orderId: 'ord_2', amountCents: 5 }),
    );
    const secondId = (second.body as { approval: { approvalId: string } }).approval.approvalId;
    now += 61_000;
    await gateway.approvals.get(secondId);
    expect(events.filter((e) => e.hook === 'onApprovalDecided').at(-1)!.event).toMatchObject({
      approvalId: secondId,
      status: 'expired',
    });
    expect(requested).toHaveLength(2);
  });

  it('a hook that throws or takes 10 s changes neither the answer nor its latency; both are logged', async () => {
    const logged: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
    const logger = {
      error: (message: string, fields?: Record<string, unknown>) =>
        logged.push({ message, fields }),
      warn: (message: string, fields?: Record<string, unknown>) => logged.push({ message, fields }),
    };
    const tenSeconds: Array<() => void> = [];
    const slow = () =>
      new Promise<void>((resolve) => {
        tenSeconds.push(resolve);
      });
    const throwing = () => {
      throw new Error('hook exploded');
    };
    const plain = fixtureGateway({ logger });
    const hooked = fixtureGateway({
      logger,
      hooks: { onInvokeReceived: throwing, onInvokeAnswered: slow, slowHookMs: 20 },
    });
    try {
      const body = invokeBody('lookup-account', { accountId: 'acc_1' });
      const plainAnswer = await createTestClient(plain, { token: TOKEN }).invoke(body);
      const hookedAnswer = await createTestClient(hooked, { token: TOKEN }).invoke(body);
      expect(hookedAnswer).toEqual(plainAnswer);

      const median = async (target: Gateway): Promise<number> => {
        const times: number[] = [];
        for (let i = 0; i < 200; i++) {
          const request = new Request('https://gateway.acme.example/v1/invoke', {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const start = performance.now();
          await target.fetch(request);
          times.push(performance.now() - start);
        }
        return times.sort((a, b) => a - b)[100]!;
      };
      await median(plain); // warm-up
      await median(hooked);
      const [withoutHooks, withHooks] = [await median(plain), await median(hooked)];
      expect(withHooks - withoutHooks).toBeLessThan(1);

      expect(logged).toContainEqual({
        message: 'hook failed',
        fields: {
          hook: 'onInvokeReceived',
          error: expect.objectContaining({ message: 'hook exploded' }),
        },
      });
      await vi.waitFor(() =>
        expect(logged).toContainEqual({
          message: 'hook slow',
          fields: { hook: 'onInvokeAnswered', afterMs: 20 },
        }),
      );
    } finally {
      for (const finish of tenSeconds) finish();
      await plain.close();
      await hooked.close();
    }
  });

  it('a rejected hook promise is logged, never an unhandled rejection', async () => {
    const warned: string[] = [];
    gateway = fixtureGateway({
      logger: {
        error: () => {},
        warn: (message, fields) => warned.push(`${message} ${fields?.hook}`),
      },
      hooks: { onInvokeAnswered: async () => Promise.reject(new Error('chat is down')) },
    });
    const answer = await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('lookup-account', { accountId: 'a' }),
    );
    expect(answer.status).toBe(200);
    await gateway.idle();
    expect(warned).toEqual(['hook failed onInvokeAnswered']);
  });
});
