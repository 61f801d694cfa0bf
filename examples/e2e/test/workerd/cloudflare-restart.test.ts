import {
  AcceptedResponseSchema,
  ApprovalRequiredResponseSchema,
  JobSchema,
} from '@svc/gateway-kit/contract';
import { invokeBody } from '@svc/gateway-kit/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallbackReceiver, startCallbackReceiver } from '../../src/callback-receiver.ts';
import type { RunningExample } from '../../src/example-process.ts';
import { eventually, http, valid } from '../../src/http.ts';
import { persistenceFolder, startWrangler } from '../../src/wrangler-example.ts';

// examples/cloudflare stopped and started again on the same persistence folder (what survives a
// restart of the runtime, an eviction or a deploy): a job accepted before finishes after it and
// calls back, signed; a pending approval is still pending and can be decided.
const TOKEN = 'e2e-cloudflare-restart-token';
const OPERATOR_TOKEN = 'e2e-cloudflare-restart-operator';
// A Standard Webhooks secret for this test only (whsec_ + base64 of random bytes).
const SECRET = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
const auth = { authorization: `Bearer ${TOKEN}` };

describe('examples/cloudflare across a restart of the runtime (same --persist-to folder)', () => {
  const folder = persistenceFolder();
  const start = () =>
    startWrangler({
      persistTo: folder.path,
      vars: {
        GATEWAY_TOKEN: TOKEN,
        OPERATOR_TOKEN,
        ALLOW_LOOPBACK_CALLBACKS: '1',
        CALLBACK_SIGNING_SECRET: SECRET,
        // The alarm checks on active jobs every 2 s (30 s by default): this test waits for it.
        JOB_WATCH_INTERVAL_MS: '2000',
      },
    });
  let receiver: CallbackReceiver;
  let example: RunningExample | undefined;
  beforeAll(async () => {
    receiver = await startCallbackReceiver();
  });
  afterAll(async () => {
    await example?.stop();
    await receiver.close();
    folder.remove();
  });

  it('a job running when the runtime stopped completes after it restarts, woken by its alarm, and its signed callback arrives', async () => {
    example = await start();
    const accepted = await http(`${example.url}/v1/invoke`, {
      method: 'POST',
      headers: auth,
      body: invokeBody(
        'generate-report',
        { topic: 'restart', delayMs: 4_000 },
        { callbacks: { jobResultUrl: `${receiver.url}/jobs` } },
      ),
    });
    const { job } = valid(AcceptedResponseSchema, accepted.body, 'accepted');
    // Stopped while the action runs: the run is lost with the process, the job is not.
    await eventually('the job to run', async () => {
      const answer = await http(job.statusUrl!, { headers: auth });
      return valid(JobSchema, answer.body, 'job').status === 'running' ? true : undefined;
    });
    await example.stop();
    expect(receiver.received).toEqual([]);

    example = await start();
    // Nothing calls the gateway now: the Durable Object's alarm wakes it, and it runs the job again
    // (generate-report is idempotent) and calls back.
    const callback = await receiver.waitFor(`job_${job.jobId}_completed`, 30_000);
    const statusUrl = job.statusUrl!.replace(/^http:\/\/[^/]+/, example.url);
    const finished = valid(JobSchema, (await http(statusUrl, { headers: auth })).body, 'job');
    expect(finished).toMatchObject({
      jobId: job.jobId,
      status: 'completed',
      outputText: expect.stringContaining('restart'),
    });
    // Signed with the secret from the Worker's bindings: verifiable with standardwebhooks.
    const verified = new Webhook(SECRET).verify(callback.raw, {
      'webhook-id': String(callback.headers['webhook-id']),
      'webhook-timestamp': String(callback.headers['webhook-timestamp']),
      'webhook-signature': String(callback.headers['webhook-signature']),
    });
    expect(verified).toMatchObject({ job: { jobId: job.jobId, status: 'completed' } });
  }, 120_000);

  it('a pending approval survives the restart and can be decided after it', async () => {
    example ??= await start();
    const answer = await http(`${example.url}/v1/invoke`, {
      method: 'POST',
      headers: auth,
      body: invokeBody(
        'issue-refund',
        { orderId: 'ord_2001', amountCents: 1250 },
        {
          callbacks: {
            jobResultUrl: `${receiver.url}/jobs`,
            approvalUrl: `${receiver.url}/approvals`,
          },
        },
      ),
    });
    const { approval } = valid(ApprovalRequiredResponseSchema, answer.body, 'approval_required');
    await example.stop();

    example = await start();
    const read = await http(`${example.url}/v1/approvals/${approval.approvalId}`, {
      headers: auth,
    });
    expect(read).toMatchObject({ status: 200, body: { approval: { status: 'pending' } } });
    const decided = await http(
      `${example.url}/operator/api/approvals/${approval.approvalId}/decision`,
      { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }, body: { approved: true } },
    );
    expect(decided).toMatchObject({
      status: 200,
      body: { approval: { status: 'approved', decidedBy: 'operator' } },
    });
    const decision = await receiver.waitFor(`approval_${approval.approvalId}_approved`, 15_000);
    expect(decision.body).toMatchObject({ approval: { status: 'approved' } });
    const jobId = (decided.body as { job: { jobId: string } }).job.jobId;
    const result = await receiver.waitFor(`job_${jobId}_completed`, 15_000);
    expect(result.body).toMatchObject({ job: { jobId, status: 'completed' } });
  }, 120_000);
});
