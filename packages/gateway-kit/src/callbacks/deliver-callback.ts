import { MAX_TIMER_MS } from '../runtime/limits.ts';
import { TIMED_OUT, withinBudget } from '../runtime/time-budget.ts';
import { abortableSleep } from '../runtime/timers.ts';
import { refuseCallbackOption } from './callback-config-error.ts';
import {
  assertValidUrlPolicy,
  type CallbackUrlCheck,
  type CallbackUrlPolicy,
  type CallbackUrlRefusal,
  checkCallbackUrl,
  checkCallbackUrlResolved,
  type ResolveHost,
} from './callback-url-guard.ts';
import type { AttemptHealth } from './circuit-breaker.ts';
import { type WebhookSigner, webhookSigner } from './webhook-signer.ts';

/**
 * Why a callback was not delivered.
 * - `refused_url`: the SSRF guard refused the URL (see `refusal`); nothing was sent.
 * - `gone`: the receiver answered 410 Gone; it does not want this callback any more.
 * - `client_error`: any other 4xx (the request itself is wrong, retrying will not help).
 * - `redirected`: the receiver answered 3xx; redirects are not followed (they could point the
 *   request, with its credentials, anywhere the guard has not checked).
 * - `invalid_authorization`: `authorization` is not a legal HTTP header value; nothing was sent.
 * - `exhausted`: every attempt failed with a retryable outcome.
 * - `aborted`: the caller's `signal` fired.
 * - `overflow` (dispatcher only): the dispatcher's pending-delivery limits were full; nothing
 *   was sent.
 * - `circuit_open` (dispatcher only): the destination's circuit breaker stayed open longer than
 *   the delivery may wait (`maxDelayMs` in total); no request was sent for it meanwhile.
 * - `queued` (dispatcher with an outbox only): not delivered yet, but stored in the outbox; the
 *   next attempt is made from there, by any instance. Not a failure: `onDeliveryFailed` is not
 *   called for it.
 * - `expired` (dispatcher with an outbox only): the entry outlived the outbox's retention before
 *   it could be delivered (e.g. its receiver stayed unreachable); nothing more is sent.
 *
 * @example
 * if (!result.delivered && result.reason === 'gone') forgetSubscription();
 */
export type CallbackFailureReason =
  | 'refused_url'
  | 'gone'
  | 'client_error'
  | 'redirected'
  | 'invalid_authorization'
  | 'exhausted'
  | 'aborted'
  | 'overflow'
  | 'circuit_open'
  | 'queued'
  | 'expired';

/**
 * Why an attempt got no HTTP response: the attempt timeout (DNS check included), a network
 * error, or a failed DNS check (only with `resolveHost`).
 *
 * @example
 * const kind: CallbackTransportError = 'timeout';
 */
export type CallbackTransportError = 'timeout' | 'network' | 'dns';

/**
 * The outcome of {@link deliverCallback}. `attempts` counts requests started (0 when nothing was
 * sent). `lastStatus` is the most recent HTTP status received, `lastError` the transport error of
 * the final attempt when it got no response.
 *
 * @example
 * const result: CallbackDeliveryResult = await deliverCallback(options);
 * if (!result.delivered) console.warn('callback failed', result.reason, result.attempts);
 */
export type CallbackDeliveryResult =
  | {
      /** The receiver answered 2xx. */
      readonly delivered: true;
      /** Requests started, the successful one included. */
      readonly attempts: number;
      /** The receiver's 2xx status. */
      readonly status: number;
    }
  | {
      /** Not delivered; `reason` says why. */
      readonly delivered: false;
      /** Requests started; 0 when nothing was sent. */
      readonly attempts: number;
      /** Why the callback was not delivered. */
      readonly reason: CallbackFailureReason;
      /** The most recent HTTP status received; absent when no attempt got a response. */
      readonly lastStatus?: number;
      /** The final attempt's transport error, when it got no response. */
      readonly lastError?: CallbackTransportError;
      /** Set when `reason` is `refused_url`. */
      readonly refusal?: CallbackUrlRefusal;
    };

/**
 * Reported after every attempt. Carries no URL, header or body, so it is safe to log.
 *
 * @example
 * const onAttempt = (event: CallbackAttemptEvent) =>
 *   console.info(`callback ${event.webhookId} #${event.attempt}: ${event.outcome}`);
 */
export interface CallbackAttemptEvent {
  /** The callback's `webhook-id`. */
  readonly webhookId: string;
  /** 1-based. */
  readonly attempt: number;
  /** `retrying`: another attempt follows after `retryInMs`; `stopped`: this was the last one. */
  readonly outcome: 'delivered' | 'retrying' | 'stopped';
  /** HTTP status of the response; absent when the attempt got none. */
  readonly status?: number;
  /** Why the attempt got no response; absent when it got one. */
  readonly error?: CallbackTransportError;
  /** Milliseconds until the next attempt, for `retrying`. */
  readonly retryInMs?: number;
}

/**
 * Delivery settings shared by {@link deliverCallback} and `CallbackDispatcher`.
 *
 * @example
 * const settings: CallbackDeliverySettings = { signingSecret: process.env.WEBHOOK_SECRET!, maxAttempts: 5 };
 */
export interface CallbackDeliverySettings {
  /** Standard Webhooks secret (`whsec_<base64>`); when set, every attempt carries `webhook-signature`. */
  readonly signingSecret?: string;
  /** SSRF policy; default: https to public hosts only. */
  readonly urlPolicy?: CallbackUrlPolicy;
  /** Optional DNS check before each attempt (e.g. `resolveHostWithNodeDns` from the Node adapter). */
  readonly resolveHost?: ResolveHost;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Attempts in total, first one included: a positive safe integer. Default 8. */
  readonly maxAttempts?: number;
  /**
   * Time allowed for each whole attempt: the DNS check (with `resolveHost`), connecting, sending
   * and receiving the response headers. From 1 to 2 147 483 647 ms (the longest timer). Default
   * 10 000 ms.
   */
  readonly attemptTimeoutMs?: number;
  /**
   * Backoff ceiling of the first retry; doubles per retry. From 0 to 2 147 483 647 ms. Default
   * 1 000 ms.
   */
  readonly baseDelayMs?: number;
  /**
   * Upper bound of any wait, `Retry-After` included. From 0 to 2 147 483 647 ms (a longer timer
   * would fire at once). Default 60 000 ms.
   */
  readonly maxDelayMs?: number;
  /** Called after every attempt; exceptions it throws are ignored. */
  readonly onAttempt?: (event: CallbackAttemptEvent) => void;
  /** Test hook: waits `ms` (should end early when `signal` aborts). Default: `setTimeout`. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Test hook: uniform random number in [0, 1) for jitter. Default `Math.random`. */
  readonly random?: () => number;
  /** Test hook: current time in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * One callback to deliver, plus the shared settings.
 *
 * @example
 * const options: DeliverCallbackOptions = {
 *   url: callbacks.jobResultUrl,
 *   body: { job },
 *   webhookId: `job_${job.jobId}_${job.status}`,
 *   authorization: callbacks.authorization,
 * };
 */
export interface DeliverCallbackOptions extends CallbackDeliverySettings {
  /** Where to `POST` the callback; checked by the SSRF guard (`urlPolicy`) first. */
  readonly url: string;
  /** JSON-serialisable body; serialised once, so every attempt sends identical bytes. */
  readonly body: object;
  /** Stable identifier of this event across retries (`webhook-id`); receivers dedupe on it. */
  readonly webhookId: string;
  /** Sent verbatim as the `Authorization` header (the invoke request's `callbacks.authorization`). */
  readonly authorization?: string | undefined;
  /** Aborts the delivery: the current attempt and any wait end at once with `aborted`. */
  readonly signal?: AbortSignal;
}

/**
 * Permission to run one attempt, from an {@link AttemptGate}; `leave` it exactly once with what
 * the attempt said about the receiver. Internal.
 *
 * @example
 * const ticket = await gate.enter(signal);
 * if (typeof ticket === 'object') ticket.leave('success');
 */
export interface AttemptTicket {
  leave(health: AttemptHealth): void;
}

/**
 * What a delivery passes before each attempt (the dispatcher's concurrency limits and circuit
 * breaker): a ticket, or the reason to stop. Internal.
 *
 * @example
 * const gate: AttemptGate = { enter: async () => ({ leave: () => undefined }) };
 */
export interface AttemptGate {
  /** `busy`: no slot within the wait the gate allows (outbox attempts only). */
  enter(
    signal: AbortSignal | undefined,
  ): Promise<AttemptTicket | 'aborted' | 'circuit_open' | 'busy'>;
}

/** Defaults of the retry schedule (see docs/callbacks.md). */
export const CALLBACK_DELIVERY_DEFAULTS: {
  /** Attempts in total, the first one included: 8. */
  readonly maxAttempts: number;
  /** Time allowed for each attempt: 10 000 ms. */
  readonly attemptTimeoutMs: number;
  /** Backoff ceiling of the first retry, doubling per retry: 1 000 ms. */
  readonly baseDelayMs: number;
  /** Upper bound of any wait between attempts: 60 000 ms. */
  readonly maxDelayMs: number;
} = Object.freeze({
  maxAttempts: 8,
  attemptTimeoutMs: 10_000,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
});

// Field values a Headers object accepts (no NUL/CR/LF, nothing beyond Latin-1).
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// It is signed as `${id}.${timestamp}.${body}`, so it must survive header whitespace trimming.
const WEBHOOK_ID = /^[\x21-\x7e]{1,256}$/;

/** A delivery whose options were validated and whose body was serialised. Internal. */
export interface PreparedDelivery {
  readonly url: string;
  readonly payload: string;
  readonly webhookId: string;
  readonly authorization: string | undefined;
  readonly signer: WebhookSigner | undefined;
  readonly urlPolicy: CallbackUrlPolicy | undefined;
  readonly resolveHost: ResolveHost | undefined;
  readonly fetch: typeof fetch;
  readonly maxAttempts: number;
  readonly attemptTimeoutMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onAttempt: ((event: CallbackAttemptEvent) => void) | undefined;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
}

/** A duration a timer waits for: at least `min`, at most what a timer holds (longer fires at once). */
function numberOption(name: string, value: number | undefined, fallback: number, min: number) {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result < min || result > MAX_TIMER_MS) {
    refuseCallbackOption(
      name,
      result,
      min === 0
        ? `expected 0 or a positive number of milliseconds up to ${MAX_TIMER_MS}.`
        : `expected a number of milliseconds from ${min} to ${MAX_TIMER_MS}.`,
    );
  }
  return result;
}

/**
 * The signer for a Standard Webhooks secret. Internal: not re-exported from the package.
 *
 * @example
 * const signature = await signerOf(secret).sign(webhookId, seconds, payload); // 'v1,…'
 * @throws {CallbackConfigError} when the secret is empty or not base64 (the value is never echoed).
 */
function signerOf(signingSecret: string): WebhookSigner {
  const signer = typeof signingSecret === 'string' ? webhookSigner(signingSecret) : undefined;
  if (signer === undefined)
    refuseCallbackOption('signingSecret', signingSecret, "expected 'whsec_' and base64.", true);
  return signer;
}

/**
 * Validates delivery settings eagerly so that mistakes surface at setup, and answers the signer
 * of the signing secret, if any. Internal: shared with the dispatcher, not re-exported from the
 * package.
 *
 * @example
 * validateDeliverySettings({ maxAttempts: 0 }); // throws CallbackConfigError('maxAttempts', …)
 */
export function validateDeliverySettings(
  settings: CallbackDeliverySettings,
): WebhookSigner | undefined {
  const signer =
    settings.signingSecret === undefined ? undefined : signerOf(settings.signingSecret);
  assertValidUrlPolicy(settings.urlPolicy);
  const maxAttempts = settings.maxAttempts ?? 1;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    refuseCallbackOption('maxAttempts', maxAttempts, 'expected a positive integer.');
  }
  numberOption('attemptTimeoutMs', settings.attemptTimeoutMs, 1, 1);
  numberOption('baseDelayMs', settings.baseDelayMs, 0, 0);
  numberOption('maxDelayMs', settings.maxDelayMs, 0, 0);
  return signer;
}

/**
 * Validates `options` and serialises the body once. Internal: shared with the dispatcher.
 *
 * @example
 * const prepared = prepareDelivery({ url, body: { job }, webhookId });
 * const bytes = prepared.payload.length;
 * @throws {CallbackConfigError} for an invalid setting, `webhookId` or a non-JSON body.
 */
export function prepareDelivery(options: DeliverCallbackOptions): PreparedDelivery {
  const signer = validateDeliverySettings(options);
  if (typeof options.webhookId !== 'string' || !WEBHOOK_ID.test(options.webhookId)) {
    refuseCallbackOption(
      'webhookId',
      options.webhookId,
      'expected 1-256 printable ASCII characters, no spaces.',
    );
  }
  let payload: string | undefined;
  try {
    payload = JSON.stringify(options.body);
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'string') {
    refuseCallbackOption('body', options.body, 'expected a value JSON can hold.');
  }
  const d = CALLBACK_DELIVERY_DEFAULTS;
  return {
    url: options.url,
    payload,
    webhookId: options.webhookId,
    authorization: options.authorization === '' ? undefined : options.authorization,
    signer,
    urlPolicy: options.urlPolicy,
    resolveHost: options.resolveHost,
    // Looked up per call, not at import time, so test doubles of globalThis.fetch apply.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxAttempts: options.maxAttempts ?? d.maxAttempts,
    attemptTimeoutMs: options.attemptTimeoutMs ?? d.attemptTimeoutMs,
    baseDelayMs: options.baseDelayMs ?? d.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? d.maxDelayMs,
    signal: options.signal,
    onAttempt: options.onAttempt,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
}

/**
 * The wait before retry number `retry` (1 = first retry): "full jitter", a uniform draw between
 * 0 and `min(maxDelayMs, baseDelayMs * 2^(retry-1))`, which spreads retries of many callbacks
 * that failed together.
 *
 * @example
 * backoffDelay(3, { baseDelayMs: 1000, maxDelayMs: 60000, random: () => 0.5 }); // 2000
 */
export function backoffDelay(
  retry: number,
  options: {
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
    readonly random: () => number;
  },
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const draw = Math.min(Math.max(options.random(), 0), 1);
  return Math.floor(draw * ceiling);
}

/** The three HTTP-date forms (IMF-fixdate, obsolete RFC 850, asctime) a recipient must accept. */
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT|[A-Z][a-z]+, \d\d-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})$/;

/**
 * Parses a `Retry-After` value into milliseconds from `now`: delay-seconds (a whole number), or an
 * HTTP date in one of RFC 9110's three forms, where a date in the past means 0 (retry now).
 * `undefined` when absent or in none of those forms (`Date.parse` would read `'-5'` as the year
 * -5). The rule `@svc/workspace-client` applies too (docs/decisions.md, "Retry-After"). Internal.
 *
 * @example
 * parseRetryAfter('120', Date.now()); // 120000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.now()); // 0 (in the past)
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  // asctime carries no zone: it is GMT by definition.
  const date = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

type AttemptOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'stop'; readonly reason: CallbackFailureReason; readonly status?: number }
  | {
      readonly kind: 'retry';
      readonly status?: number;
      readonly error?: CallbackTransportError;
      readonly retryAfterMs?: number;
    }
  | { readonly kind: 'aborted' };

type RetryOutcome = Extract<AttemptOutcome, { kind: 'retry' }>;

function classifyResponse(response: Response, now: number): AttemptOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  // Browsers and workers expose a manual redirect as an opaque response with status 0.
  if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
    return { kind: 'stop', reason: 'redirected', status };
  }
  if (status === 410) return { kind: 'stop', reason: 'gone', status };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now);
    return retryAfterMs === undefined
      ? { kind: 'retry', status }
      : { kind: 'retry', status, retryAfterMs };
  }
  return { kind: 'stop', reason: 'client_error', status };
}

type Refused = { readonly kind: 'refused'; readonly refusal: CallbackUrlRefusal };

/**
 * One attempt under one deadline (`attemptTimeoutMs`): the optional DNS check, then the request
 * until its response headers. Both are raced against the deadline, so a resolver or a `fetch`
 * that ignores the signal cannot hold the attempt longer.
 */
async function attemptOnce(p: PreparedDelivery, url: URL): Promise<AttemptOutcome | Refused> {
  const timeout = AbortSignal.timeout(p.attemptTimeoutMs);
  const signal = p.signal ? AbortSignal.any([p.signal, timeout]) : timeout;
  const ended = (): AttemptOutcome =>
    p.signal?.aborted ? { kind: 'aborted' } : { kind: 'retry', error: 'timeout' };
  if (p.resolveHost) {
    const gate = await withinBudget(checkBeforeAttempt(p, url, p.resolveHost), { signal });
    if (gate === TIMED_OUT || signal.aborted) return ended();
    if (gate) return gate;
  }
  const seconds = Math.floor(p.now() / 1000);
  // Standard Webhooks: the timestamp is per attempt (receivers reject stale ones), so re-sign.
  const headers = new Headers({
    'content-type': 'application/json',
    'webhook-id': p.webhookId,
    'webhook-timestamp': String(seconds),
  });
  if (p.signer)
    headers.set('webhook-signature', await p.signer.sign(p.webhookId, seconds, p.payload));
  if (p.authorization !== undefined) headers.set('authorization', p.authorization);
  try {
    const request = {
      method: 'POST',
      headers,
      body: p.payload,
      redirect: 'manual',
      signal,
    } as const;
    const response = await withinBudget(p.fetch(url, request), { signal });
    if (response === TIMED_OUT) return ended();
    // The body is not needed; release the connection instead of waiting for GC.
    response.body?.cancel().catch(() => undefined);
    return classifyResponse(response, p.now());
  } catch (error) {
    if (p.signal?.aborted) return { kind: 'aborted' };
    const timedOut = timeout.aborted || (error instanceof Error && error.name === 'TimeoutError');
    return { kind: 'retry', error: timedOut ? 'timeout' : 'network' };
  }
}

/** The optional DNS check: `undefined` to go ahead, a retry, or the refusal that ends delivery. */
async function checkBeforeAttempt(
  p: PreparedDelivery,
  url: URL,
  resolveHost: ResolveHost,
): Promise<RetryOutcome | Refused | undefined> {
  let check: CallbackUrlCheck;
  try {
    check = await checkCallbackUrlResolved(url, p.urlPolicy, resolveHost);
  } catch {
    check = { ok: false, reason: 'dns_lookup_failed' };
  }
  if (check.ok) return undefined;
  // A failed lookup may be temporary; a name that points inside the network is not.
  if (check.reason === 'dns_lookup_failed') return { kind: 'retry', error: 'dns' };
  return { kind: 'refused', refusal: check.reason };
}

/**
 * What an attempt says about the receiver's reachability, for the circuit breaker: any HTTP
 * answer (5xx included) shows it is reachable; no answer (timeout, network or DNS error) is a
 * failure. A 5xx costs one short request and is spaced by the callback's own backoff, whereas
 * silence holds a socket for `attemptTimeoutMs`; counting 5xx would also let a receiver that
 * fails each callback's first attempts keep the circuit open for every callback.
 */
function healthOf(outcome: AttemptOutcome | Refused): AttemptHealth {
  switch (outcome.kind) {
    case 'delivered':
    case 'stop':
      return 'success';
    case 'retry':
      return outcome.status !== undefined ? 'success' : 'failure';
    default:
      return 'neutral';
  }
}

function report(p: PreparedDelivery, event: CallbackAttemptEvent): void {
  try {
    p.onAttempt?.(event);
  } catch {
    // An observer must not be able to break delivery.
  }
}

/**
 * What can be known before any request: the URL to send to, or the failure that ends the delivery
 * at once (`refused_url`, `invalid_authorization`). Internal.
 *
 * @example
 * const checked = precheckDelivery(prepared);
 * if (!(checked instanceof URL)) return checked;
 */
export function precheckDelivery(
  p: PreparedDelivery,
): URL | Extract<CallbackDeliveryResult, { delivered: false }> {
  const check = checkCallbackUrl(p.url, p.urlPolicy);
  if (!check.ok) {
    return { delivered: false, attempts: 0, reason: 'refused_url', refusal: check.reason };
  }
  if (p.authorization !== undefined && !HEADER_VALUE.test(p.authorization)) {
    return { delivered: false, attempts: 0, reason: 'invalid_authorization' };
  }
  return check.url;
}

/**
 * Runs a prepared delivery; with a `gate`, every attempt first passes it (the dispatcher's
 * limits). Internal: `deliverCallback` is the public entry point.
 *
 * @example
 * const result = await runDelivery(prepareDelivery(options), limiter.gate(origin, 60_000));
 */
export async function runDelivery(
  p: PreparedDelivery,
  gate?: AttemptGate,
  /** Told the receiver's `Retry-After` (ms) when the last attempt was retryable and carried one. */
  onRetryAfter?: (ms: number) => void,
): Promise<CallbackDeliveryResult> {
  const check = precheckDelivery(p);
  if (!(check instanceof URL)) return check;
  let lastStatus: number | undefined;
  let attempts = 0;
  const failure = (
    reason: CallbackFailureReason,
    lastError?: CallbackTransportError,
  ): Extract<CallbackDeliveryResult, { delivered: false }> => ({
    delivered: false,
    attempts,
    reason,
    ...(lastStatus === undefined ? {} : { lastStatus }),
    ...(lastError === undefined ? {} : { lastError }),
  });

  while (true) {
    if (p.signal?.aborted) return failure('aborted');
    let ticket: AttemptTicket | undefined;
    if (gate) {
      const entered = await gate.enter(p.signal);
      if (entered === 'aborted' || entered === 'circuit_open') return failure(entered);
      if (entered === 'busy') return failure('overflow');
      ticket = entered;
    }
    let outcome: AttemptOutcome | Refused = { kind: 'aborted' };
    try {
      outcome = await attemptOnce(p, check);
    } finally {
      ticket?.leave(healthOf(outcome));
    }
    if (outcome.kind === 'refused') {
      return { ...failure('refused_url'), refusal: outcome.refusal };
    }
    attempts += 1;
    const status = 'status' in outcome ? outcome.status : undefined;
    if (status !== undefined) lastStatus = status;
    const base = {
      webhookId: p.webhookId,
      attempt: attempts,
      ...(status === undefined ? {} : { status }),
    };

    switch (outcome.kind) {
      case 'delivered':
        report(p, { ...base, outcome: 'delivered' });
        return { delivered: true, attempts, status: outcome.status };
      case 'aborted':
        report(p, { ...base, outcome: 'stopped' });
        return failure('aborted');
      case 'stop':
        report(p, { ...base, outcome: 'stopped' });
        return failure(outcome.reason);
      case 'retry': {
        const error = outcome.error;
        const withError = error === undefined ? base : { ...base, error };
        if (attempts >= p.maxAttempts) {
          report(p, { ...withError, outcome: 'stopped' });
          if (outcome.retryAfterMs !== undefined) onRetryAfter?.(outcome.retryAfterMs);
          return failure('exhausted', error);
        }
        const delay = Math.min(p.maxDelayMs, outcome.retryAfterMs ?? backoffDelay(attempts, p));
        report(p, { ...withError, outcome: 'retrying', retryInMs: delay });
        // Called inside then() so that a hook throwing synchronously cannot escape either.
        const wait = Promise.resolve().then(() => p.sleep(delay, p.signal));
        await withinBudget(
          wait.catch(() => undefined),
          { signal: p.signal },
        );
      }
    }
  }
}

/**
 * Delivers one callback (webhook): POSTs `body` as JSON to `url` and retries until it is
 * accepted, refused for good, or attempts run out. Never rejects: every delivery failure is a
 * {@link CallbackDeliveryResult}. Throws {@link CallbackConfigError} synchronously for
 * programming errors (bad signing secret, non-JSON body, invalid retry options).
 *
 * Each attempt sends `Content-Type: application/json`, `Authorization` verbatim when given, and
 * the Standard Webhooks headers `webhook-id` (stable), `webhook-timestamp` (per attempt) and,
 * with a `signingSecret`, `webhook-signature`. The URL passes the SSRF guard first; redirects are
 * not followed. 2xx delivers; 408, 429, 5xx, timeouts and network errors are retried with
 * exponential backoff and full jitter, honouring `Retry-After` up to `maxDelayMs`; 410 stops as
 * `gone`, 3xx as `redirected`, other 4xx as `client_error`.
 *
 * @example
 * const result = await deliverCallback({
 *   url: request.callbacks.jobResultUrl,
 *   body: { job },
 *   webhookId: `job_${job.jobId}_${job.status}`,
 *   authorization: request.callbacks.authorization,
 *   signingSecret: process.env.CALLBACK_SIGNING_SECRET,
 * });
 * if (!result.delivered) console.warn('job callback failed:', result.reason);
 */
export function deliverCallback(options: DeliverCallbackOptions): Promise<CallbackDeliveryResult> {
  return runDelivery(prepareDelivery(options));
}
