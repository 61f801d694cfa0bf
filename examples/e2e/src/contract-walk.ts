import { REFUND_LIMIT_CENTS } from '@svc/example-demo-actions';
import type { Approval } from '@svc/gateway-kit';
import type { ApprovalCallbackBody, JobResultCallbackBody } from '@svc/gateway-kit/callbacks';
import {
  AcceptedResponseSchema,
  ApprovalRequiredResponseSchema,
  CancelResponseSchema,
  CompletedResponseSchema,
  ErrorEnvelopeSchema,
  type Job,
  JobSchema,
  JobStatusSchema,
  ManifestSchema,
  RejectedResponseSchema,
} from '@svc/gateway-kit/contract';
import { invokeBody } from '@svc/gateway-kit/testing';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallbackReceiver, startCallbackReceiver } from './callback-receiver.ts';
import type { RunningExample } from './example-process.ts';
import { gatewayCheckTests } from './gateway-check-walk.ts';
import { eventually, type HttpAnswer, http, rawGet, valid } from './http.ts';

/** One example server to walk. */
export interface WalkTarget {
  /** Title of the describe block, e.g. `examples/deno on Deno`. */
  readonly title: string;
  /** Starts the server; it must accept {@link WalkTarget.token} and allow loopback callbacks. */
  readonly start: () => Promise<RunningExample>;
  readonly token: string;
  /** Path the gateway is mounted under inside a larger app (`/gateway`), checked in the URL printed. */
  readonly mountPath?: string;
  /**
   * The operator API of the example, when it has one (examples/node): the walk then decides
   * approvals through it. Without one, approvals are walked up to `approval_required` and
   * `GET /v1/approvals/{id}` (nothing else can decide them from outside the process).
   */
  readonly operatorToken?: string;
  /**
   * The example listens on loopback and answers only requests addressed to a loopback name: a
   * valid token under a foreign `Host` gets `403 forbidden_host` (DNS rebinding).
   */
  readonly loopbackGuard?: boolean;
  /** Extra checks of this example, run against the same server. */
  readonly more?: (server: () => WalkContext) => void;
}

/** What the extra checks of a target get. */
export interface WalkContext {
  readonly example: RunningExample;
  /** Gateway base URL (with the mount path). */
  readonly url: string;
  /** Origin of the server. */
  readonly origin: string;
  readonly receiver: CallbackReceiver;
}

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const HttpUrl = v.pipe(v.string(), v.url());

// The kit exports no schema for GET /v1/approvals/{id} or the callback bodies; these follow its
// exported types (a change there fails the typecheck here).
const ApprovalSchema: v.GenericSchema<Approval> = v.strictObject({
  approvalId: v.string(),
  status: v.picklist(['pending', 'approved', 'denied', 'expired']),
  reason: v.pipe(v.string(), v.minLength(1)),
  actionId: v.string(),
  actionName: v.string(),
  // Only while pending: a decided or expired approval keeps nothing the caller sent.
  input: v.exactOptional(v.record(v.string(), v.unknown())),
  invocationId: v.string(),
  meetingId: v.string(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  decidedAt: v.exactOptional(Timestamp),
  decidedBy: v.exactOptional(v.string()),
  note: v.exactOptional(v.string()),
  job: v.exactOptional(
    v.strictObject({
      jobId: v.string(),
      status: JobStatusSchema,
      statusUrl: HttpUrl,
      cancelUrl: HttpUrl,
    }),
  ),
});
const ApprovalViewSchema: v.GenericSchema<{ approval: Approval }> = v.strictObject({
  approval: ApprovalSchema,
});
// decide() answers the approved job with its links, as GET /v1/approvals/{id} shows it.
const DecisionAnswerSchema: v.GenericSchema<{
  approval: Approval;
  job?: { jobId: string; status: Job['status']; statusUrl: string; cancelUrl: string };
}> = v.strictObject({
  approval: ApprovalSchema,
  job: v.exactOptional(
    v.strictObject({
      jobId: v.string(),
      status: v.picklist(['queued', 'running', 'completed', 'failed', 'cancelled']),
      statusUrl: v.pipe(v.string(), v.url()),
      cancelUrl: v.pipe(v.string(), v.url()),
    }),
  ),
});
const JobCallbackSchema: v.GenericSchema<JobResultCallbackBody> = v.strictObject({
  job: JobSchema,
});
const ApprovalCallbackSchema: v.GenericSchema<ApprovalCallbackBody> = v.strictObject({
  approval: v.strictObject({
    approvalId: v.string(),
    status: v.picklist(['approved', 'denied', 'expired']),
    decidedAt: Timestamp,
    decidedBy: v.exactOptional(v.string()),
    note: v.exactOptional(v.string()),
    job: v.exactOptional(
      v.strictObject({
        jobId: v.string(),
        status: JobStatusSchema,
        statusUrl: v.exactOptional(HttpUrl),
      }),
    ),
  }),
});

const CALLBACK_CREDENTIAL = 'Bearer callback-credential-from-the-hosted-service';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Asserts an error envelope with `code` and HTTP `status`; returns the error. */
function expectError(answer: HttpAnswer, status: number, code: string) {
  expect({ status: answer.status, body: answer.body }).toMatchObject({
    status,
    body: { error: { code } },
  });
  return valid(ErrorEnvelopeSchema, answer.body, `${status} ${code} envelope`).error;
}

/**
 * Registers the contract walk of one running example: manifest, auth failures, each demo action,
 * 422s, jobs with polling, cancel, approvals and callbacks, every answer checked against the
 * contract schemas exported by `@svc/gateway-kit`.
 */
export function contractWalk(target: WalkTarget): void {
  describe(target.title, () => {
    let example: RunningExample | undefined;
    let receiver: CallbackReceiver | undefined;
    const ctx = (): WalkContext => {
      if (!example || !receiver) throw new Error('the example did not start');
      return { example, url: example.url, origin: new URL(example.url).origin, receiver };
    };
    const auth = { authorization: `Bearer ${target.token}` };
    const get = (path: string, headers: Record<string, string> = auth) =>
      http(`${ctx().url}${path}`, { headers });
    const invoke = (body: unknown, headers: Record<string, string> = auth) =>
      http(`${ctx().url}/v1/invoke`, { method: 'POST', headers, body });
    const getJob = async (statusUrl: string): Promise<Job> => {
      const answer = await http(statusUrl, { headers: auth });
      expect(answer.status).toBe(200);
      return valid(JobSchema, answer.body, 'job');
    };
    const pollJob = async (statusUrl: string, seen: Job[] = []): Promise<Job> =>
      eventually(`job ${statusUrl} to finish`, async () => {
        const job = await getJob(statusUrl);
        seen.push(job);
        return TERMINAL.has(job.status) ? job : undefined;
      });
    const withCallbacks = (paths: { job?: string; approval?: string }) => ({
      callbacks: {
        ...(paths.job ? { jobResultUrl: `${ctx().receiver.url}${paths.job}` } : {}),
        ...(paths.approval ? { approvalUrl: `${ctx().receiver.url}${paths.approval}` } : {}),
        authorization: CALLBACK_CREDENTIAL,
      },
    });

    beforeAll(async () => {
      receiver = await startCallbackReceiver();
      example = await target.start();
    }, 30_000);
    afterAll(async () => {
      await example?.stop();
      await receiver?.close();
    });

    it('prints its gateway URL, with the mount path', () => {
      expect(new URL(ctx().url).pathname.replace(/\/$/, '')).toBe(target.mountPath ?? '');
    });

    it('serves a manifest valid against ManifestSchema: catalogue, capabilities, its own URL', async () => {
      const answer = await get('/v1/manifest');
      expect(answer.status).toBe(200);
      const manifest = valid(ManifestSchema, answer.body, 'manifest');
      expect(manifest.version).toBe('2026-11-22');
      expect(manifest.gateway).toMatchObject({
        id: 'demo',
        url: ctx().url,
        auth: { type: 'bearer' },
        capabilities: { asyncJobs: true, jobCallbacks: true, approvals: true },
      });
      expect(manifest.callbacks).toEqual({ jobResults: true, approvals: true });
      const byId = Object.fromEntries(manifest.actions.map((action) => [action.id, action]));
      expect(Object.keys(byId).sort()).toEqual([
        'generate-report',
        'issue-refund',
        'lookup-account',
      ]);
      expect(byId['lookup-account']).toMatchObject({
        executionMode: 'sync',
        sideEffectLevel: 'read',
        idempotent: true,
        requiresApproval: false,
        inputSchema: { type: 'object', required: ['accountId'], additionalProperties: false },
      });
      expect(byId['generate-report']).toMatchObject({
        executionMode: 'async',
        requiresApproval: false,
        inputSchema: {
          required: ['topic'],
          properties: { delayMs: { type: 'integer', minimum: 0, maximum: 60_000 } },
        },
      });
      expect(byId['issue-refund']).toMatchObject({
        requiresApproval: true,
        sideEffectLevel: 'destructive',
        idempotent: false,
        inputSchema: { required: ['orderId', 'amountCents'] },
      });
      // Cheap polling: the same manifest is a 304 for its ETag.
      const etag = answer.headers.get('etag');
      expect(etag).toBeTruthy();
      const again = await get('/v1/manifest', { ...auth, 'if-none-match': etag! });
      expect(again.status).toBe(304);
    });

    it('answers 401 with an error envelope and WWW-Authenticate to missing, wrong and non-bearer credentials', async () => {
      const attempts: Array<[string, Record<string, string>]> = [
        ['no token', {}],
        ['wrong token', { authorization: 'Bearer not-the-gateway-token' }],
        ['Basic scheme', { authorization: `Basic ${btoa(`user:${target.token}`)}` }],
        ['token without scheme', { authorization: target.token }],
      ];
      for (const [label, headers] of attempts) {
        const answers = [
          await get('/v1/manifest', headers),
          await invoke(invokeBody('lookup-account', { accountId: 'acc_1001' }), headers),
          await get('/v1/jobs/job_missing', headers),
          await http(`${ctx().url}/v1/jobs/job_missing/cancel`, { method: 'POST', headers }),
          await get('/v1/approvals/apr_missing', headers),
        ];
        for (const answer of answers) {
          expect(answer.status, label).toBe(401);
          expect(answer.headers.get('www-authenticate'), label).toMatch(/^Bearer\b/);
          expect(expectError(answer, 401, 'unauthorized').retryable).toBe(false);
          expect(answer.text).not.toContain(target.token);
        }
      }
    });

    it('lookup-account answers completed with data, and rejected for an unknown account', async () => {
      const found = await invoke(invokeBody('lookup-account', { accountId: 'acc_1001' }));
      expect(found.status).toBe(200);
      expect(valid(CompletedResponseSchema, found.body, 'completed')).toEqual({
        status: 'completed',
        outputText: 'Globex GmbH is on the enterprise plan and is active.',
        machineSummary: 'account=acc_1001 plan=enterprise status=active',
        dataSchemaVersion: '1',
        data: { accountId: 'acc_1001', name: 'Globex GmbH', plan: 'enterprise', status: 'active' },
      });
      const missing = await invoke(invokeBody('lookup-account', { accountId: 'acc_9999' }));
      expect(missing.status).toBe(200);
      expect(valid(RejectedResponseSchema, missing.body, 'rejected').error).toMatchObject({
        code: 'account_not_found',
        retryable: false,
      });
    });

    it('answers 422 for unknown properties, invalid input and unknown actions; 400/415 for bad bodies', async () => {
      const unknownTop = await invoke({
        ...invokeBody('lookup-account', { accountId: 'acc_1001' }),
        extra: 1,
      });
      expect(expectError(unknownTop, 422, 'invalid_request').details).toMatchObject({
        issues: [{ path: 'extra' }],
      });
      const unknownInMeeting = await invoke(
        invokeBody(
          'lookup-account',
          { accountId: 'acc_1001' },
          { meeting: { host: 'x' } as never },
        ),
      );
      expectError(unknownInMeeting, 422, 'invalid_request');
      const unknownInput = await invoke(
        invokeBody('lookup-account', { accountId: 'acc_1001', include: 'everything' }),
      );
      expectError(unknownInput, 422, 'invalid_input');
      const badAccount = await invoke(invokeBody('lookup-account', { accountId: 'bob' }));
      expect(expectError(badAccount, 422, 'invalid_input').details).toMatchObject({
        issues: [
          { path: 'action.input.accountId', message: 'Expected an account id like acc_1001' },
        ],
      });
      const slowReport = await invoke(
        invokeBody('generate-report', { topic: 'Q3', delayMs: 60_001 }),
      );
      expect(expectError(slowReport, 422, 'invalid_input').details).toMatchObject({
        issues: [{ path: 'action.input.delayMs' }],
      });
      const stringAmount = await invoke(
        invokeBody('issue-refund', { orderId: 'ord_2001', amountCents: '100' }),
      );
      expectError(stringAmount, 422, 'invalid_input');
      const unknownAction = await invoke(invokeBody('delete-everything', {}));
      expectError(unknownAction, 422, 'unknown_action');
      const malformed = await http(`${ctx().url}/v1/invoke`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"invocationId": ',
      });
      expectError(malformed, 400, 'malformed_json');
      const notJson = await http(`${ctx().url}/v1/invoke`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'text/plain' },
        body: 'hello',
      });
      expectError(notJson, 415, 'unsupported_media_type');
    });

    it('answers 404 and 405 envelopes off the contract routes', async () => {
      expectError(await get('/v1/nothing-here'), 404, 'not_found');
      const wrongMethod = await get('/v1/invoke');
      expectError(wrongMethod, 405, 'method_not_allowed');
      expect(wrongMethod.headers.get('allow')).toBe('POST');
      expectError(await get('/v1/jobs/job_missing'), 404, 'job_not_found');
      expectError(
        await http(`${ctx().url}/v1/jobs/job_missing/cancel`, { method: 'POST', headers: auth }),
        404,
        'job_not_found',
      );
      expectError(await get('/v1/approvals/apr_missing'), 404, 'approval_not_found');
    });

    it('runs generate-report as a job: accepted, progress while running, completed, result callback', async () => {
      const answer = await invoke(
        invokeBody(
          'generate-report',
          { topic: 'Churn in Q3', delayMs: 600 },
          withCallbacks({ job: '/jobs' }),
        ),
      );
      expect(answer.status).toBe(200);
      const { job: accepted } = valid(AcceptedResponseSchema, answer.body, 'accepted');
      expect(accepted.status).toBe('queued');
      expect(accepted.statusUrl).toBe(`${ctx().url}/v1/jobs/${accepted.jobId}`);
      expect(accepted.cancelUrl).toBe(`${ctx().url}/v1/jobs/${accepted.jobId}/cancel`);

      const seen: Job[] = [];
      const finished = await pollJob(accepted.statusUrl!, seen);
      expect(finished).toMatchObject({
        jobId: accepted.jobId,
        status: 'completed',
        actionId: 'generate-report',
        outputText: 'The report on "Churn in Q3" is ready: revenue is up 4% on last quarter.',
        data: { topic: 'Churn in Q3' },
      });
      // Progress was visible on the job resource while it ran.
      expect(seen.filter((job) => job.status === 'running').map((job) => job.outputText)).toContain(
        'Comparing with last quarter for "Churn in Q3" (2/3)…',
      );

      const callback = await ctx().receiver.waitFor(`job_${accepted.jobId}_completed`);
      expect(callback).toMatchObject({ method: 'POST', path: '/jobs' });
      expect(callback.headers.authorization).toBe(CALLBACK_CREDENTIAL);
      expect(callback.headers['content-type']).toBe('application/json');
      expect(callback.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(valid(JobCallbackSchema, callback.body, 'job callback').job).toEqual(
        await getJob(accepted.statusUrl!),
      );
    });

    it('cancels a running report: 200 { job } cancelled, it stays cancelled, a second cancel is 409', async () => {
      const answer = await invoke(
        invokeBody(
          'generate-report',
          { topic: 'Long one', delayMs: 30_000 },
          withCallbacks({ job: '/jobs' }),
        ),
      );
      const { job } = valid(AcceptedResponseSchema, answer.body, 'accepted');
      await eventually('the report to run', async () =>
        (await getJob(job.statusUrl!)).status === 'running' ? true : undefined,
      );
      const cancel = await http(job.cancelUrl!, { method: 'POST', headers: auth });
      expect(cancel.status).toBe(200);
      expect(valid(CancelResponseSchema, cancel.body, 'cancel answer').job).toMatchObject({
        jobId: job.jobId,
        status: 'cancelled',
      });
      const callback = await ctx().receiver.waitFor(`job_${job.jobId}_cancelled`);
      expect(callback.headers.authorization).toBe(CALLBACK_CREDENTIAL);
      expect(valid(JobCallbackSchema, callback.body, 'job callback').job.status).toBe('cancelled');
      // What must NOT happen (the aborted run ending the job another way) has no event to wait
      // for over HTTP: a fixed window, far longer than the aborted run takes to return.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await getJob(job.statusUrl!)).status).toBe('cancelled');
      const ended = ctx()
        .receiver.received.map((r) => r.headers['webhook-id'])
        .filter((id) => typeof id === 'string' && id.startsWith(`job_${job.jobId}_`));
      expect([...new Set(ended)]).toEqual([`job_${job.jobId}_cancelled`]); // at least once

      const again = await http(job.cancelUrl!, { method: 'POST', headers: auth });
      expect(expectError(again, 409, 'job_not_cancellable').details).toEqual({
        status: 'cancelled',
      });
    });

    it('asks for approval before a refund; refuses over-limit, over-total and unknown-order refunds at once', async () => {
      const answer = await invoke(
        invokeBody('issue-refund', { orderId: 'ord_2001', amountCents: 1250 }),
      );
      expect(answer.status).toBe(200);
      const { approval } = valid(ApprovalRequiredResponseSchema, answer.body, 'approval_required');
      expect(approval.reason).toBe('"Issue a refund" needs an operator\'s approval.');
      expect(approval.statusUrl).toBe(`${ctx().url}/v1/approvals/${approval.approvalId}`);
      expect(Date.parse(approval.expiresAt!)).toBeGreaterThan(Date.now());

      const view = await http(approval.statusUrl!, { headers: auth });
      expect(view.status).toBe(200);
      expect(valid(ApprovalViewSchema, view.body, 'approval').approval).toMatchObject({
        approvalId: approval.approvalId,
        status: 'pending',
        actionId: 'issue-refund',
        input: { orderId: 'ord_2001', amountCents: 1250 },
        expiresAt: approval.expiresAt,
      });

      const overLimit = await invoke(
        invokeBody('issue-refund', { orderId: 'ord_2002', amountCents: REFUND_LIMIT_CENTS + 1 }),
      );
      expect(overLimit.status).toBe(200);
      expect(valid(RejectedResponseSchema, overLimit.body, 'rejected').error).toEqual({
        code: 'refund_over_limit',
        message: 'Refunds above 500.00 EUR need a manager and cannot be issued here.',
        retryable: false,
        details: { limitCents: REFUND_LIMIT_CENTS },
      });
      const overTotal = await invoke(
        invokeBody('issue-refund', { orderId: 'ord_2003', amountCents: 5_000 }),
      );
      expect(valid(RejectedResponseSchema, overTotal.body, 'rejected').error.code).toBe(
        'refund_exceeds_order',
      );
      const noOrder = await invoke(
        invokeBody('issue-refund', { orderId: 'ord_9999', amountCents: 100 }),
      );
      expect(valid(RejectedResponseSchema, noOrder.body, 'rejected').error.code).toBe(
        'order_not_found',
      );
    });

    const operatorToken = target.operatorToken;
    if (operatorToken) {
      const decide = (approvalId: string, approved: boolean, token = operatorToken) =>
        http(`${ctx().origin}/operator/api/approvals/${approvalId}/decision`, {
          headers: { authorization: `Bearer ${token}` },
          body: { approved },
        });
      const requestRefund = async (amountCents: number) => {
        const answer = await invoke(
          invokeBody(
            'issue-refund',
            { orderId: 'ord_2001', amountCents },
            withCallbacks({ job: '/jobs', approval: '/approvals' }),
          ),
        );
        return valid(ApprovalRequiredResponseSchema, answer.body, 'approval_required').approval;
      };

      it('runs an approved refund as a job; the decision and the result arrive by callback', async () => {
        const approval = await requestRefund(1250);
        expectError(
          await decide(approval.approvalId, true, 'wrong-operator-token'),
          401,
          'unauthorized',
        );

        const decided = await decide(approval.approvalId, true);
        expect(decided.status).toBe(200);
        const { approval: after, job } = valid(DecisionAnswerSchema, decided.body, 'decision');
        expect(after).toMatchObject({ status: 'approved', decidedBy: 'operator' });
        // Once its job exists, the approval keeps nothing the caller sent (the job has it).
        expect(after).not.toHaveProperty('input');
        expect(job).toBeDefined();
        expectError(await decide(approval.approvalId, false), 409, 'approval_already_decided');

        const finished = await pollJob(`${ctx().url}/v1/jobs/${job!.jobId}`);
        expect(finished).toMatchObject({
          status: 'completed',
          actionId: 'issue-refund',
          outputText: 'Refunded 12.50 EUR on order ord_2001.',
          data: { orderId: 'ord_2001', amountCents: 1250, currency: 'EUR' },
        });
        const view = valid(
          ApprovalViewSchema,
          (await http(approval.statusUrl!, { headers: auth })).body,
          'approval',
        );
        expect(view.approval).toMatchObject({
          status: 'approved',
          job: { jobId: job!.jobId, status: 'completed' },
        });

        const decisionCallback = await ctx().receiver.waitFor(
          `approval_${approval.approvalId}_approved`,
        );
        expect(decisionCallback).toMatchObject({ path: '/approvals' });
        expect(decisionCallback.headers.authorization).toBe(CALLBACK_CREDENTIAL);
        expect(
          valid(ApprovalCallbackSchema, decisionCallback.body, 'approval callback').approval,
        ).toMatchObject({
          approvalId: approval.approvalId,
          status: 'approved',
          decidedBy: 'operator',
          job: { jobId: job!.jobId },
        });
        const resultCallback = await ctx().receiver.waitFor(`job_${job!.jobId}_completed`);
        expect(valid(JobCallbackSchema, resultCallback.body, 'job callback').job.outputText).toBe(
          'Refunded 12.50 EUR on order ord_2001.',
        );
      });

      it('never runs a denied refund, and reports the denial by callback', async () => {
        const approval = await requestRefund(990);
        const decided = await decide(approval.approvalId, false);
        expect(decided.status).toBe(200);
        const { approval: after, job } = valid(DecisionAnswerSchema, decided.body, 'decision');
        expect(after.status).toBe('denied');
        expect(job).toBeUndefined();
        const view = valid(
          ApprovalViewSchema,
          (await http(approval.statusUrl!, { headers: auth })).body,
          'approval',
        );
        expect(view.approval.status).toBe('denied');
        expect(view.approval).not.toHaveProperty('input');
        expect(view.approval.job).toBeUndefined();
        const callback = await ctx().receiver.waitFor(`approval_${approval.approvalId}_denied`);
        expect(
          valid(ApprovalCallbackSchema, callback.body, 'approval callback').approval,
        ).not.toHaveProperty('job');
      });
    }

    if (target.loopbackGuard) {
      it('refuses a valid token under a foreign Host (DNS rebinding): 403 forbidden_host', async () => {
        const auth = { authorization: `Bearer ${target.token}` };
        for (const host of ['evil.example', 'evil.example:8787']) {
          const refused = await rawGet(`${ctx().url}/v1/manifest`, { ...auth, host });
          expect(refused.status).toBe(403);
          expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'forbidden_host' } });
        }
        // A Host that is no host[:port]: refused by the gateway (403) or by the server (400).
        const malformed = await rawGet(`${ctx().url}/v1/manifest`, {
          ...auth,
          host: 'evil.example/x?',
        });
        expect([400, 403]).toContain(malformed.status);
        expect(malformed.body).not.toContain('"actions"');
        const port = new URL(ctx().origin).port;
        const allowed = await rawGet(`${ctx().url}/v1/manifest`, {
          ...auth,
          host: `localhost:${port}`,
        });
        expect(allowed.status).toBe(200);
      });
    }

    gatewayCheckTests(ctx, target.token);
    target.more?.(ctx);
  });
}
