import type { Approval } from '../contract/approval.ts';
import { LooseApprovalAnswerSchema } from '../contract/approval.ts';
import type {
  AcceptedResponse,
  ApprovalRequiredResponse,
  CompletedResponse,
  RejectedResponse,
} from '../contract/invoke-response.ts';
import { InvokeResponseSchema } from '../contract/invoke-response.ts';
import { CancelResponseSchema, type Job, LooseJobSchema } from '../contract/job.ts';
import { LooseManifestSchema, type Manifest } from '../contract/manifest.ts';
import {
  isWholeMs,
  refuseOption,
  refuseUnknownOptions,
  WHOLE_MS,
} from '../errors/check-options-error.ts';
import { GatewayClientError } from '../errors/gateway-client-error.ts';
import { exchange, type FetchLike, hasCredentials, joinUrl, sameOrigin } from '../http/exchange.ts';
import { randomId } from '../http/random-id.ts';
import { expectAnswer } from './answers.ts';
import { type JobHandle, type WaitOptions, waitForJob } from './job-handle.ts';
import type { ActionInput, TypedActionLike } from './typed-action.ts';

/**
 * Options of {@link createGatewayClient}.
 *
 * @example
 * const options: GatewayClientOptions = { url: 'https://gateway.example.com', token, timeoutMs: 5_000 };
 */
export interface GatewayClientOptions {
  /**
   * The gateway base address (`{gateway_url}`), e.g. `https://gateway.example.com`; without
   * credentials (`https://u:p@…` is refused: the URL is named in error messages).
   */
  readonly url: string;
  /** The bearer token the gateway accepts. Sent only to `url`; never part of an error. */
  readonly token: string;
  /** A fetch implementation; default the global `fetch`. A gateway's own `fetch` works in-process. */
  readonly fetch?: FetchLike;
  /**
   * Deadline of each request (connect, headers and body): a whole number of milliseconds from 1
   * to 2 147 483 647 (the longest timer), else `createGatewayClient` throws a `CheckOptionsError`
   * naming it. Default 10 s.
   */
  readonly timeoutMs?: number;
}

/**
 * What an invoke sends besides the action and its input; every field has a default.
 *
 * @example
 * await client.invoke('lookup-account', { accountId: 'acc_1001' }, { meeting: { id: 'm1', roomName: 'Weekly' } });
 */
export interface InvokeOptions {
  /** The request's `invocationId`; defaults to a random `inv-<32 hex digits>`. */
  readonly invocationId?: string;
  /** Sent as `idempotencyKey`; none by default. */
  readonly idempotencyKey?: string;
  /** Sent as `traceId`; none by default. */
  readonly traceId?: string;
  /** Sent as `deadlineAt` (a date-time); none by default. */
  readonly deadlineAt?: string;
  /** The meeting; defaults to `{ id: 'gateway-client', roomName: 'gateway-client' }`. */
  readonly meeting?: {
    /** The meeting's id. */
    readonly id: string;
    /** The meeting room's name. */
    readonly roomName: string;
  };
  /** The session; defaults to a random `session-…` id in `active` mode. */
  readonly session?: {
    /** The session's id. */
    readonly id: string;
    /** The session's mode: `active`, `passive` or `listening`. */
    readonly mode: 'active' | 'passive' | 'listening';
  };
  /** Sent as `context`; defaults to `{}`. */
  readonly context?: Readonly<Record<string, unknown>>;
  /** Sent as `callbacks`; defaults to `{}`. */
  readonly callbacks?: {
    /** Where the gateway posts the job's result. */
    readonly jobResultUrl?: string;
    /** Where the gateway posts the approval's outcome. */
    readonly approvalUrl?: string;
    /** Credential the gateway sends with the callbacks. */
    readonly authorization?: string;
  };
  /** Aborts the request (the call then rejects with an `aborted` `GatewayClientError`). */
  readonly signal?: AbortSignal;
}

/**
 * The answer of an invoke: one of the contract's four outcomes, and for `accepted` a
 * {@link JobHandle} to follow the job.
 *
 * @example
 * const outcome = await client.invoke('generate-report', { topic: 'Q3' });
 * if (outcome.status === 'accepted') await outcome.handle.wait();
 */
export type InvokeOutcome =
  | CompletedResponse
  | (AcceptedResponse & {
      /** Follows the accepted job. */
      readonly handle: JobHandle;
    })
  | ApprovalRequiredResponse
  | RejectedResponse;

/**
 * A typed client of one gateway.
 *
 * @example
 * const client = createGatewayClient({ url: 'http://127.0.0.1:8787', token });
 * const { actions } = await client.manifest();
 */
export interface GatewayClient {
  /** `GET /v1/manifest`, checked against the contract's manifest table. */
  manifest(options?: { signal?: AbortSignal }): Promise<Manifest>;
  /**
   * `POST /v1/invoke` of one action, named by id or given as its definition (then `input` is
   * typed from the action's schema). Resolves with one of the four outcomes; an error envelope
   * (401, 422, …) rejects with a `gateway` {@link GatewayClientError}.
   */
  invoke<TAction extends TypedActionLike | string>(
    action: TAction,
    input: ActionInput<TAction>,
    options?: InvokeOptions,
  ): Promise<InvokeOutcome>;
  /** A handle on a job the gateway accepted earlier. */
  job(jobId: string): JobHandle;
  /**
   * An approval's state, from the `statusUrl` of an `approval_required` answer when it is on the
   * gateway's origin, else `GET /v1/approvals/{approvalId}` (`@svc/gateway-kit`'s route; the
   * contract names none). The token is never sent to another origin.
   */
  approval(approval: string | { approvalId: string; statusUrl?: string }): Promise<Approval>;
}

// Every option of each options object, typed against its interface: an option added there without
// a line here fails the typecheck. A key outside them throws a CheckOptionsError naming it.
const CLIENT_OPTIONS = /* @__PURE__ */ Object.keys({
  url: true,
  token: true,
  fetch: true,
  timeoutMs: true,
} satisfies { readonly [K in keyof GatewayClientOptions]-?: true });
const INVOKE_OPTIONS = /* @__PURE__ */ Object.keys({
  invocationId: true,
  idempotencyKey: true,
  traceId: true,
  deadlineAt: true,
  meeting: true,
  session: true,
  context: true,
  callbacks: true,
  signal: true,
} satisfies { readonly [K in keyof InvokeOptions]-?: true });
const WAIT_OPTIONS = /* @__PURE__ */ Object.keys({
  signal: true,
  pollIntervalMs: true,
  timeoutMs: true,
} satisfies { readonly [K in keyof WaitOptions]-?: true });
type SignalOptions = NonNullable<Parameters<GatewayClient['manifest']>[0]>;
const SIGNAL_OPTIONS = /* @__PURE__ */ Object.keys({
  signal: true,
} satisfies { readonly [K in keyof SignalOptions]-?: true });

/** Refuses `options` (of a call) that is not an object, or has a key outside `known`. */
function checkCallOptions(who: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refuseOption(who, 'options', options, `expected { ${known.join(', ')} }.`);
  refuseUnknownOptions(who, options, known);
}

/**
 * Creates a {@link GatewayClient}. Works wherever `fetch` and Web Crypto exist (Node 22+, Deno,
 * Bun, browsers). Every answer is validated against the contract; a gateway that breaks it makes
 * the call reject with a `contract` error naming the rule. An option it does not know (`tokn`), a
 * missing token or an unusable `timeoutMs` throws a `CheckOptionsError` naming it (never its
 * value); so do the options objects of the client's methods (`invoke`, `wait`, …), as rejections.
 *
 * @example
 * const client = createGatewayClient({ url: 'http://127.0.0.1:8787', token: process.env.GATEWAY_TOKEN! });
 * const outcome = await client.invoke('generate-report', { topic: 'Quarterly numbers' });
 * if (outcome.status === 'accepted') {
 *   const job = await outcome.handle.wait({ pollIntervalMs: 250 });
 *   console.log(job.status, job.outputText);
 * }
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const who = 'createGatewayClient';
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refuseOption(who, 'options', options, 'expected { url, token, … }.');
  // A misspelt `token` sent every call without credentials; a misspelt `timeoutMs` kept 10 s.
  refuseUnknownOptions(who, options, CLIENT_OPTIONS);
  if (typeof options.url !== 'string' || options.url === '')
    refuseOption(who, 'url', options.url, 'expected the gateway base address.', true);
  if (hasCredentials(options.url))
    refuseOption(
      who,
      'url',
      options.url,
      'expected a URL without credentials (the token goes in token).',
    );
  // Every route is a path under it: a query would swallow the path (`/base?key=…/v1/manifest`).
  if (/[?#]/.test(options.url))
    refuseOption(
      who,
      'url',
      options.url,
      'expected a URL without a query or fragment (routes are paths under it).',
    );
  if (typeof options.token !== 'string' || options.token === '')
    refuseOption(who, 'token', options.token, 'expected a non-empty string.', true);
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    refuseOption(who, 'fetch', options.fetch, 'expected a function.');
  // `0`, `NaN` or a string would fail every request at call time (or at once); a longer timer
  // than 2^31-1 ms fires at once.
  if (options.timeoutMs !== undefined && !isWholeMs(options.timeoutMs))
    refuseOption(who, 'timeoutMs', options.timeoutMs, WHOLE_MS);
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const auth = { authorization: `Bearer ${options.token}` };
  const call = (method: 'GET' | 'POST', url: string, body?: unknown, signal?: AbortSignal) =>
    exchange(fetchFn, {
      method,
      url,
      timeoutMs,
      signal,
      secret: options.token,
      headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
      body,
    });
  const jobUrl = (jobId: string) => joinUrl(options.url, `/v1/jobs/${encodeURIComponent(jobId)}`);

  const job = (jobId: string): JobHandle => {
    const get = async (signal?: AbortSignal): Promise<Job> => {
      const answered = expectAnswer(
        await call('GET', jobUrl(jobId), undefined, signal),
        LooseJobSchema,
        'job-resource',
        `GET job ${jobId}`,
      );
      // Another job than the one asked for would be followed as if it were this one.
      if (answered.jobId !== jobId)
        throw new GatewayClientError({
          kind: 'contract',
          status: 200,
          rule: 'job-resource',
          issues: ['jobId: expected the job asked for'],
          message: `GET job ${jobId}: the gateway answered job ${answered.jobId} (rule job-resource)`,
        });
      return answered;
    };
    return {
      jobId,
      get: async (opts) => {
        checkCallOptions('JobHandle.get', opts, SIGNAL_OPTIONS);
        return get(opts?.signal);
      },
      wait: async (opts) => {
        checkCallOptions('JobHandle.wait', opts, WAIT_OPTIONS);
        return waitForJob(get, opts);
      },
      cancel: async (opts) => {
        checkCallOptions('JobHandle.cancel', opts, SIGNAL_OPTIONS);
        const answer = await call('POST', `${jobUrl(jobId)}/cancel`, undefined, opts?.signal);
        return expectAnswer(answer, CancelResponseSchema, 'job-cancel', `cancel job ${jobId}`).job;
      },
    };
  };

  return {
    manifest: async (opts) => {
      checkCallOptions('GatewayClient.manifest', opts, SIGNAL_OPTIONS);
      return expectAnswer(
        await call('GET', joinUrl(options.url, '/v1/manifest'), undefined, opts?.signal),
        LooseManifestSchema,
        'manifest-shape',
        'GET /v1/manifest',
      );
    },
    invoke: async (action, input, opts = {}) => {
      // A misspelt idempotencyKey would send the invoke without one: a retry would run it twice.
      checkCallOptions('GatewayClient.invoke', opts, INVOKE_OPTIONS);
      const actionId = typeof action === 'string' ? action : action.id;
      const body = {
        invocationId: opts.invocationId ?? randomId('inv'),
        ...(opts.idempotencyKey === undefined ? {} : { idempotencyKey: opts.idempotencyKey }),
        ...(opts.traceId === undefined ? {} : { traceId: opts.traceId }),
        ...(opts.deadlineAt === undefined ? {} : { deadlineAt: opts.deadlineAt }),
        meeting: opts.meeting ?? { id: 'gateway-client', roomName: 'gateway-client' },
        session: opts.session ?? { id: randomId('session'), mode: 'active' },
        action: { id: actionId, input },
        context: opts.context ?? {},
        callbacks: opts.callbacks ?? {},
      };
      const answer = await call('POST', joinUrl(options.url, '/v1/invoke'), body, opts.signal);
      const outcome = expectAnswer(
        answer,
        InvokeResponseSchema,
        'invoke-response-shape',
        `invoke ${actionId}`,
      );
      return outcome.status === 'accepted'
        ? { ...outcome, handle: job(outcome.job.jobId) }
        : outcome;
    },
    job,
    approval: async (approval) => {
      const ref = typeof approval === 'string' ? { approvalId: approval } : approval;
      // The token goes only to the gateway's own origin, whatever statusUrl says.
      const url =
        ref.statusUrl && sameOrigin(ref.statusUrl, options.url)
          ? ref.statusUrl
          : joinUrl(options.url, `/v1/approvals/${encodeURIComponent(ref.approvalId)}`);
      const answer = await call('GET', url);
      return expectAnswer(
        answer,
        LooseApprovalAnswerSchema,
        'approval-required-shape',
        'GET approval',
      ).approval;
    },
  };
}
