import * as v from 'valibot';
import { isFinalJobStatus } from '../../client/job-handle.ts';
import {
  type AcceptedResponse,
  type InvokeResponse,
  InvokeResponseSchema,
} from '../../contract/invoke-response.ts';
import { CancelResponseSchema, type Job, LooseJobSchema } from '../../contract/job.ts';
import type { ActionDescriptor } from '../../contract/manifest.ts';
import { sameOrigin } from '../../http/exchange.ts';
import { invalidInputs } from '../../schema/generate-input.ts';
import { type CheckRun, describeAnswer, expectShape, expectThat } from '../check-run.ts';
import { invokeBody } from '../invoke-body.ts';

/** What the action checks need besides the run. */
export interface ActionPlan {
  readonly action: ActionDescriptor;
  /** A generated valid input, or why none could be generated or sent. */
  readonly input: Record<string, unknown> | undefined;
  /** Why the action is not invoked (side effects, no input), when it is not. */
  readonly notInvoked: string | undefined;
  readonly jobTimeoutMs: number;
  readonly pollIntervalMs: number;
}

const isAsync = (action: ActionDescriptor) => action.executionMode === 'async';

async function invoke(run: CheckRun, actionId: string, input: unknown, what: string) {
  return run.request({
    route: 'invoke',
    method: 'POST',
    path: '/v1/invoke',
    body: invokeBody(actionId, input),
    what,
  });
}

async function getJob(run: CheckRun, jobId: string, url?: string): Promise<Job> {
  const path = url ?? `/v1/jobs/${encodeURIComponent(jobId)}`;
  const answer = await run.request({ route: 'job', method: 'GET', path, what: `GET ${path}` });
  expectThat(answer.status === 200, `GET ${path} answered ${describeAnswer(answer)}, expected 200`);
  const job = expectShape(LooseJobSchema, answer.json, `GET ${path}`);
  expectThat(job.jobId === jobId, `GET ${path} answered the job ${JSON.stringify(job.jobId)}`);
  return job;
}

/** Invokes `action` validly and expects `accepted`; resolves with the job, or why there is none. */
async function acceptedJob(
  run: CheckRun,
  plan: ActionPlan,
): Promise<AcceptedResponse['job'] | { skip: string }> {
  const answer = await invoke(run, plan.action.id, plan.input, `invoke ${plan.action.id}`);
  if (answer.status !== 200)
    return { skip: `the invoke answered ${describeAnswer(answer)}, not accepted` };
  // A wrong answer shape is the invoke-response-shape rule's failure, not this check's.
  const parsed = v.safeParse(InvokeResponseSchema, answer.json);
  if (!parsed.success) return { skip: 'the invoke answer does not match the contract' };
  if (parsed.output.status !== 'accepted') {
    return { skip: `the invoke answered ${parsed.output.status}, not accepted` };
  }
  return parsed.output.job;
}

/**
 * The checks of one action: invalid inputs get 422, a valid input gets one of the four outcomes,
 * and, by what it answers, its job (status, completion, cancel) or its approval.
 */
export async function checkAction(run: CheckRun, plan: ActionPlan): Promise<void> {
  const { action, input, notInvoked } = plan;
  const id = action.id;

  const variants = input ? invalidInputs(action.inputSchema, input) : [];
  if (notInvoked || !input) {
    await run.skip(
      `invoke-input-invalid:${id}`,
      'invoke-input-invalid',
      `invalid inputs of ${id} answer 422`,
      notInvoked ?? 'no input',
    );
  } else if (variants.length === 0) {
    await run.skip(
      `invoke-input-invalid:${id}`,
      'invoke-input-invalid',
      `invalid inputs of ${id} answer 422`,
      'its inputSchema has no required property, type or additionalProperties: false to break',
    );
  }
  for (const [index, variant] of variants.entries()) {
    if (notInvoked) break;
    const title = `invoke ${id} ${variant.change} answers 422`;
    await run.check(
      `invoke-input-invalid:${id}:${index + 1}`,
      'invoke-input-invalid',
      title,
      async () => {
        const answer = await invoke(run, id, variant.value, title);
        expectThat(answer.status === 422, `answered ${describeAnswer(answer)}, expected 422`);
      },
    );
  }

  let outcome: InvokeResponse | undefined;
  const validInvoke = async (): Promise<undefined> => {
    const answer = await invoke(run, id, input, `invoke ${id}`);
    expectThat(
      answer.status === 200,
      `answered ${describeAnswer(answer)}, expected 200 (input ${JSON.stringify(input)})`,
    );
    outcome = expectShape(InvokeResponseSchema, answer.json, 'the invoke answer');
    return undefined;
  };
  const shapeCheck = await run.check(
    `invoke-response-shape:${id}`,
    'invoke-response-shape',
    `a valid invoke of ${id} answers 200 with one of the four outcomes`,
    async () => (notInvoked ? { skip: notInvoked } : validInvoke()),
  );
  // The job and approval checks need the answer even when --only leaves the shape check out.
  const dependents = [
    `approval-required-shape:${id}`,
    `job-resource:${id}`,
    `job-resource:${id}:final`,
    `job-cancel:${id}`,
  ];
  if (!shapeCheck && !notInvoked && dependents.some((d) => run.selected(d))) {
    await validInvoke().catch(() => undefined);
  }

  if (action.requiresApproval) {
    await run.check(
      `approval-required-shape:${id}`,
      'approval-required-shape',
      `${id} (requiresApproval) answers approval_required`,
      async () => {
        if (notInvoked) return { skip: notInvoked };
        if (!outcome) return { skip: 'the valid invoke did not answer one of the four outcomes' };
        if (outcome.status === 'rejected') {
          return {
            skip: `the gateway refused the generated input (${outcome.error.code}), so no approval was asked`,
          };
        }
        expectThat(
          outcome.status === 'approval_required',
          `answered ${outcome.status} although the manifest says requiresApproval`,
        );
        return undefined;
      },
    );
  }

  if (!isAsync(action) && outcome?.status !== 'accepted') return;
  const jobChecks = [
    [
      `job-resource:${id}`,
      'job-resource',
      `GET /v1/jobs/{jobId} of a ${id} job answers the job resource`,
    ],
    [
      `job-resource:${id}:final`,
      'job-resource',
      `a ${id} job reaches a final status, every poll a valid job resource`,
    ],
    [
      `job-cancel:${id}`,
      'job-cancel',
      `cancel of a queued or running ${id} job answers 200 { job }`,
    ],
  ] as const;
  const job = outcome?.status === 'accepted' ? outcome.job : undefined;
  if (!job) {
    const why =
      notInvoked ??
      (outcome
        ? `the valid invoke answered ${outcome.status}, not accepted`
        : 'the valid invoke did not answer one of the four outcomes');
    for (const [checkId, rule, title] of jobChecks) await run.skip(checkId, rule, title, why);
    return;
  }

  await run.check(jobChecks[0][0], jobChecks[0][1], jobChecks[0][2], async () => {
    await getJob(run, job.jobId);
    // The job's statusUrl, when it names one on the gateway's origin, must answer the same job.
    if (job.statusUrl && sameOrigin(job.statusUrl, run.settings.url)) {
      await getJob(run, job.jobId, job.statusUrl);
    }
  });
  // Cancel a second job at once while the first runs to its end.
  const final = run.check(jobChecks[1][0], jobChecks[1][1], jobChecks[1][2], async () => {
    const until = Date.now() + plan.jobTimeoutMs;
    for (;;) {
      const current = await getJob(run, job.jobId);
      if (isFinalJobStatus(current.status)) return undefined;
      if (Date.now() > until)
        return {
          skip: `still ${current.status} after ${plan.jobTimeoutMs} ms (raise --job-timeout)`,
        };
      await run.pause(plan.pollIntervalMs);
    }
  });
  await run.check(jobChecks[2][0], jobChecks[2][1], jobChecks[2][2], async () => {
    const second = await acceptedJob(run, plan);
    if ('skip' in second) return second;
    const path = `/v1/jobs/${encodeURIComponent(second.jobId)}/cancel`;
    const answer = await run.request({
      route: 'cancel',
      method: 'POST',
      path,
      what: `POST ${path}`,
    });
    if (answer.status !== 200) {
      const after = await getJob(run, second.jobId);
      if (isFinalJobStatus(after.status) && after.status !== 'cancelled') {
        return { skip: `the job was already ${after.status} when the cancel arrived` };
      }
    }
    expectThat(answer.status === 200, `answered ${describeAnswer(answer)}, expected 200`);
    const cancelled = expectShape(CancelResponseSchema, answer.json, 'the cancel answer').job;
    expectThat(
      cancelled.jobId === second.jobId,
      `answered the job ${JSON.stringify(cancelled.jobId)}`,
    );
    return undefined;
  });
  await final;
}
