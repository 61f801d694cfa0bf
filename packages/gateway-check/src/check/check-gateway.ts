import type { Manifest } from '../contract/manifest.ts';
import { generate } from '../schema/generate-input.ts';
import { CheckRun } from './check-run.ts';
import { type ActionPlan, checkAction } from './checks/actions.ts';
import { checkAuth, checkUnknownJob } from './checks/auth.ts';
import { checkCallbacks } from './checks/callbacks.ts';
import { checkContentTypes } from './checks/content-type.ts';
import { checkEnvelopes } from './checks/envelope.ts';
import { checkInvokeRequests, type Probe } from './checks/invoke-request.ts';
import { checkManifest } from './checks/manifest.ts';
import {
  type CheckGatewayOptions,
  DEFAULT_DEADLINE_MS,
  DEFAULT_JOB_TIMEOUT_MS,
  DEFAULT_MAX_ACTIONS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  validateCheckOptions,
} from './options.ts';
import type { CheckReport, CheckResult } from './report.ts';

export type { CheckGatewayOptions } from './options.ts';

/**
 * Checks a gateway, in any language, against Gateway Contract v1 over HTTP and reports each check
 * with the rule it enforces. Only `read` actions are invoked unless `allowWrites` is set.
 * Redirects are never followed: a 3xx answer is reported as what the gateway answered. Throws a
 * `CheckOptionsError` on an unusable option, before any request.
 *
 * @example
 * const report = await checkGateway({ url: 'http://127.0.0.1:8787', token: process.env.GATEWAY_TOKEN! });
 * console.log(report.counts); // { passed: 52, failed: 0, skipped: 8 }
 */
export async function checkGateway(options: CheckGatewayOptions): Promise<CheckReport> {
  validateCheckOptions(options);
  const startedAt = new Date();
  const started = performance.now();
  const only =
    options.only === undefined
      ? []
      : typeof options.only === 'string'
        ? [options.only]
        : options.only;
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const run = new CheckRun({
    url: options.url.replace(/\/+$/, ''),
    token: options.token,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    only,
    signal: options.signal,
    deadline: AbortSignal.timeout(deadlineMs),
    deadlineMs,
    onCheck: options.onCheck,
  });

  const maxActions = options.maxActions ?? DEFAULT_MAX_ACTIONS;
  const manifest = await checkManifest(run, maxActions);
  if (!run.couldNotRun) await runChecks(run, manifest, options, maxActions);
  const checks = run.results.filter((r): r is CheckResult => r !== undefined);
  const count = (status: CheckResult['status']) => checks.filter((c) => c.status === status).length;
  const counts = { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
  const incomplete = run.settings.deadline.aborted
    ? `the overall deadline of ${deadlineMs} ms passed: checks after the ${checks.length} reported were not run (raise deadlineMs / --deadline)`
    : options.signal?.aborted
      ? `stopped by its signal after ${checks.length} checks`
      : run.couldNotRun;
  return {
    url: run.settings.url,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    counts,
    ok: counts.failed === 0 && incomplete === undefined,
    ...(incomplete === undefined ? {} : { incomplete }),
    checks,
  };
}

/** Every check after the manifest, in order. */
async function runChecks(
  run: CheckRun,
  manifest: Manifest | undefined,
  options: CheckGatewayOptions,
  maxActions: number,
): Promise<void> {
  await checkAuth(run);

  const plans: ActionPlan[] = (manifest?.actions ?? []).slice(0, maxActions).map((action) => {
    const generated = generate(action.inputSchema);
    const input =
      'value' in generated && typeof generated.value === 'object' && generated.value !== null
        ? (generated.value as Record<string, unknown>)
        : undefined;
    let notInvoked: string | undefined;
    if (action.sideEffectLevel !== 'read' && !options.allowWrites) {
      notInvoked = `sideEffectLevel is ${JSON.stringify(action.sideEffectLevel)}: not invoked without --allow-writes`;
    } else if (!input) {
      notInvoked = `no input generated from its inputSchema (${'skip' in generated ? generated.skip : 'not an object'})`;
    }
    return {
      action,
      input,
      notInvoked,
      jobTimeoutMs: options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    };
  });
  const probePlan =
    plans.find((p) => !p.notInvoked && p.action.executionMode !== 'async') ??
    plans.find((p) => !p.notInvoked);
  const probe: Probe | undefined = probePlan?.input
    ? { action: probePlan.action, input: probePlan.input }
    : undefined;
  const noProbe = manifest
    ? 'no action the checker may invoke with a generated input (read actions only without --allow-writes)'
    : 'needs the manifest';
  // A gateway that runs the second action named in the two-actions probe must run a read one.
  const invocable = (manifest?.actions ?? []).filter(
    (action) => action.sideEffectLevel === 'read' || options.allowWrites,
  );
  await checkInvokeRequests(run, probe, invocable, noProbe);
  for (const plan of plans) await checkAction(run, plan);
  await checkUnknownJob(run);
  await checkCallbacks(run, manifest, plans, options);
  await checkEnvelopes(run);
  await checkContentTypes(run);
}
