import { InvokeResponseSchema } from '../../contract/invoke-response.ts';
import type { Manifest } from '../../contract/manifest.ts';
import { randomId } from '../../http/random-id.ts';
import { type CheckRun, describeAnswer, expectShape, expectThat } from '../check-run.ts';
import { invokeBody } from '../invoke-body.ts';
import type { CheckGatewayOptions } from '../options.ts';
import type { ActionPlan } from './actions.ts';

/** Where the gateway is told to call back: the URL, the receiver paths it may reach, for messages. */
interface CallbackTarget {
  readonly url: string;
  /** The path of `url`, and without the base's prefix (a proxy that strips it). */
  readonly paths: readonly string[];
  /** The URL as messages name it: a base URL (`callbackUrl`) only by its origin, `<origin>/…`. */
  readonly shown: string;
}

/**
 * The callback URL for `name`: under `callbackUrl` (its path prefix kept) when given, else on the
 * receiver's own address.
 */
function callbackTarget(
  receiverUrl: string,
  callbackUrl: string | undefined,
  name: string,
): CallbackTarget {
  if (!callbackUrl) {
    return { url: `${receiverUrl}/${name}`, paths: [`/${name}`], shown: receiverUrl };
  }
  const base = new URL(callbackUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  return {
    url: `${base.origin}${prefix}/${name}`,
    paths: prefix ? [`${prefix}/${name}`, `/${name}`] : [`/${name}`],
    // Its path may hold a secret (a tunnel or webhook token): never printed.
    shown: `${base.origin}/…`,
  };
}

/**
 * With `callbackHost` or `callbackUrl`, a job's result callback must reach a local receiver
 * carrying `callbacks.authorization` verbatim as its `Authorization` header. Approval callbacks
 * need an approval decided, which the contract gives no caller a way to do: always skipped, with
 * why.
 */
export async function checkCallbacks(
  run: CheckRun,
  manifest: Manifest | undefined,
  plans: readonly ActionPlan[],
  options: Pick<CheckGatewayOptions, 'callbackHost' | 'callbackPort' | 'callbackUrl'>,
): Promise<void> {
  const { callbackHost, callbackPort, callbackUrl } = options;
  const jobId = 'callback-authorization:job-result';
  const jobTitle = 'the job-result callback arrives with callbacks.authorization verbatim';
  await run.check(jobId, 'callback-authorization', jobTitle, async () => {
    if (!callbackHost && !callbackUrl)
      return {
        skip: 'needs --callback-host (an address where the gateway reaches this machine) or --callback-url (a tunnel or proxy to it)',
      };
    if (!manifest) return { skip: 'needs the manifest' };
    if (!manifest.gateway.capabilities.jobCallbacks && !manifest.callbacks.jobResults) {
      return { skip: 'the manifest offers no job-result callbacks' };
    }
    const plan = plans.find((p) => p.action.executionMode === 'async' && !p.notInvoked);
    if (!plan)
      return {
        skip: 'no async action the checker may invoke (read actions only without --allow-writes)',
      };
    const { CallbackListenError, startCallbackReceiver } = await import('../callback-receiver.ts');
    let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
    try {
      receiver = await startCallbackReceiver(callbackHost || '127.0.0.1', callbackPort);
    } catch (error) {
      if (!(error instanceof CallbackListenError)) throw error;
      // Not a finding about the gateway: the run could not check this rule (exit 2).
      const why = `${error.message}${callbackPort === undefined ? '' : '; free it or choose another --callback-port (callbackPort)'}`;
      run.couldNotRun = why;
      return { skip: why };
    }
    try {
      const target = callbackTarget(receiver.url, callbackUrl, randomId('job-result'));
      const authorization = randomId('gateway-check');
      const answer = await run.request({
        route: 'invoke',
        method: 'POST',
        path: '/v1/invoke',
        body: invokeBody(plan.action.id, plan.input, {
          jobResultUrl: target.url,
          authorization,
        }),
        what: `invoke ${plan.action.id} with callbacks`,
      });
      if (answer.status === 422) {
        return {
          skip: `the gateway refused the callback URL ${target.shown} (${describeAnswer(answer)}); allow it in the gateway's callback URL policy${/^http:/i.test(callbackUrl ?? '') ? ', or give an https --callback-url' : ''}`,
        };
      }
      expectThat(
        answer.status === 200,
        `the invoke answered ${describeAnswer(answer)}, expected 200`,
      );
      const outcome = expectShape(InvokeResponseSchema, answer.json, 'the invoke answer');
      if (outcome.status !== 'accepted')
        return { skip: `the invoke answered ${outcome.status}, not accepted` };
      const waitMs = plan.jobTimeoutMs + 5_000;
      const callback = await receiver.next(target.paths, waitMs);
      expectThat(
        callback,
        `no job-result callback arrived within ${waitMs} ms${callbackUrl ? ` (does ${target.shown} forward to ${receiver.url}?)` : ''}`,
      );
      expectThat(
        callback.authorization === authorization,
        callback.authorization === undefined
          ? 'the callback carried no Authorization header'
          : 'the callback Authorization header is not callbacks.authorization verbatim',
      );
      return undefined;
    } finally {
      await receiver.close();
    }
  });
  await run.skip(
    'callback-authorization:approval',
    'callback-authorization',
    'the approval callback arrives with callbacks.authorization verbatim',
    'an approval callback follows a decision, and the contract gives callers no way to decide an approval',
  );
}
