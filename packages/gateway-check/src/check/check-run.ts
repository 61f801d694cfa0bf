import * as v from 'valibot';
import { describeIssues } from '../client/answers.ts';
import type { RuleId } from '../contract/rules.ts';
import { isGatewayClientError } from '../errors/gateway-client-error.ts';
import { exchange, type FetchLike, type HttpAnswer, joinUrl } from '../http/exchange.ts';
import { isJsonMediaType } from '../http/media-type.ts';
import type { CheckResult } from './report.ts';
import { isSelected } from './select.ts';

/** The four routes of the contract, as error answers are grouped for the envelope checks. */
export type Route = 'manifest' | 'invoke' | 'job' | 'cancel';

/** Thrown by a check body: the gateway broke the rule. */
export class CheckFailed extends Error {}
/** Returned by a check body: the check could not run. */
export interface Skip {
  readonly skip: string;
}

/** Fails the running check with `message` unless `condition` holds. */
export function expectThat(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** `value` parsed by `schema`, or the running check fails naming what did not match. */
export function expectShape<T>(schema: v.GenericSchema<T>, value: unknown, what: string): T {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return parsed.output;
  const issues = value === undefined ? ['the body is not JSON'] : describeIssues(parsed.issues);
  throw new CheckFailed(`${what} does not match the contract: ${issues.join('; ')}`);
}

/** An answer's status and error code, for messages. */
export function describeAnswer(answer: HttpAnswer): string {
  const body = answer.json as { error?: { code?: unknown }; status?: unknown } | undefined;
  const code = typeof body?.error?.code === 'string' ? ` ${body.error.code}` : '';
  const status = answer.status === 200 && typeof body?.status === 'string' ? ` ${body.status}` : '';
  const location = answer.headers.get('location');
  const redirect =
    answer.status >= 300 && answer.status < 400
      ? ` (a redirect${location ? ` to ${location.slice(0, 200)}` : ''}, not followed)`
      : '';
  return `${answer.status}${code}${status}${redirect}`;
}

/** An answer with a JSON body whose `Content-Type` is not `application/json`, for messages. */
export interface MislabelledAnswer {
  readonly what: string;
  readonly status: number;
  /** The `Content-Type` the gateway sent, `null` when it sent none. */
  readonly contentType: string | null;
}

/** The most mislabelled answers kept per route: the message names a few, the count says the rest. */
const MAX_MISLABELLED_KEPT = 3;

/** Settings of one run. */
export interface RunSettings {
  readonly url: string;
  readonly token: string;
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly only: readonly string[];
  /** The caller's signal; the run stops when it aborts. */
  readonly signal: AbortSignal | undefined;
  /** Aborts when the run's overall deadline passes (`deadlineMs`). */
  readonly deadline: AbortSignal;
  readonly deadlineMs: number;
  readonly onCheck: ((result: CheckResult) => void) | undefined;
}

/** A request to the gateway, with the checker's own credentials unless `authorization` is given. */
export interface GatewayRequest {
  readonly route: Route;
  readonly method: 'GET' | 'POST';
  /** A path under the gateway URL (`/v1/manifest`) or an absolute URL. */
  readonly path: string;
  /** The `Authorization` header to send; `null` sends none; default `Bearer <token>`. */
  readonly authorization?: string | null;
  readonly body?: unknown;
  /** What the request is, for envelope failure messages. */
  readonly what: string;
}

/** The state of one checker run: selection, results in start order, error answers per route. */
export class CheckRun {
  readonly results: (CheckResult | undefined)[] = [];
  readonly errorAnswers: Record<Route, { what: string; answer: HttpAnswer }[]> = {
    manifest: [],
    invoke: [],
    job: [],
    cancel: [],
  };
  /**
   * Per route, how many answers had a JSON body, and the first of those not labelled
   * `application/json` (with their count): for the media-type checks. Counts, not answers, so a
   * long job poll keeps nothing.
   */
  readonly jsonAnswers: Record<
    Route,
    { seen: number; mislabelled: number; first: MislabelledAnswer[] }
  > = {
    manifest: { seen: 0, mislabelled: 0, first: [] },
    invoke: { seen: 0, mislabelled: 0, first: [] },
    job: { seen: 0, mislabelled: 0, first: [] },
    cancel: { seen: 0, mislabelled: 0, first: [] },
  };

  /**
   * Set, saying why, when the run cannot check the contract and stops after the manifest request:
   * it got no answer at all, or the gateway refused the token given (401 with an error envelope);
   * or when a check could not be set up on this machine (the callback receiver could not listen),
   * the other checks running on. The report is then `incomplete` with this text (the CLI exits 2).
   */
  couldNotRun: string | undefined;
  /** Every request and pause aborts on the caller's signal and on the deadline. */
  readonly signal: AbortSignal;

  constructor(readonly settings: RunSettings) {
    this.signal = settings.signal
      ? AbortSignal.any([settings.signal, settings.deadline])
      : settings.deadline;
  }

  /** Waits `ms`, or until the run is stopped (deadline or the caller's signal). */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
    });
  }

  selected(id: string): boolean {
    return isSelected(id, this.settings.only);
  }

  /**
   * Sends a request; every non-2xx answer is kept for the error-envelope checks, and every answer
   * with a JSON body is tallied for the media-type checks.
   */
  async request(request: GatewayRequest): Promise<HttpAnswer> {
    const { token, url } = this.settings;
    const headers: Record<string, string> = {};
    const authorization =
      request.authorization === undefined ? `Bearer ${token}` : request.authorization;
    if (authorization !== null) headers.authorization = authorization;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const answer = await exchange(this.settings.fetch, {
      method: request.method,
      url: /^https?:\/\//.test(request.path) ? request.path : joinUrl(url, request.path),
      headers,
      body: request.body,
      timeoutMs: this.settings.timeoutMs,
      signal: this.signal,
      secret: token,
    });
    if (answer.status < 200 || answer.status > 299) {
      this.errorAnswers[request.route].push({ what: request.what, answer });
    }
    if (answer.json !== undefined) {
      const tally = this.jsonAnswers[request.route];
      tally.seen += 1;
      const contentType = answer.headers.get('content-type');
      if (!isJsonMediaType(contentType)) {
        tally.mislabelled += 1;
        if (tally.first.length < MAX_MISLABELLED_KEPT) {
          tally.first.push({ what: request.what, status: answer.status, contentType });
        }
      }
    }
    return answer;
  }

  /**
   * Runs check `id` when selected: `body` passes by returning nothing, skips by returning a
   * {@link Skip}, fails by throwing {@link CheckFailed}. A gateway that cannot be reached fails it.
   */
  async check(
    id: string,
    rule: RuleId,
    title: string,
    body: () => Promise<Skip | undefined> | Promise<void>,
  ): Promise<CheckResult | undefined> {
    if (!this.selected(id)) return undefined;
    // Past the overall deadline no check starts: the run winds down and reports itself incomplete.
    if (this.settings.deadline.aborted) return undefined;
    const slot = this.results.push(undefined) - 1;
    const started = performance.now();
    let status: CheckResult['status'] = 'passed';
    let message: string | undefined;
    try {
      const outcome = await body();
      if (outcome) {
        status = 'skipped';
        message = outcome.skip;
      }
    } catch (error) {
      status = 'failed';
      // Cut short by the overall deadline: not a finding about the gateway; left out.
      if (this.settings.deadline.aborted && !(error instanceof CheckFailed)) return undefined;
      if (error instanceof CheckFailed) message = error.message;
      else if (isGatewayClientError(error)) message = `no answer: ${error.message}`;
      else throw error;
    }
    const result: CheckResult = {
      id,
      rule,
      title,
      status,
      ...(message === undefined ? {} : { message }),
      durationMs: Math.round(performance.now() - started),
    };
    this.results[slot] = result;
    this.settings.onCheck?.(result);
    return result;
  }

  /** Reports check `id` as skipped with `why`, when selected. */
  skip(id: string, rule: RuleId, title: string, why: string): Promise<CheckResult | undefined> {
    return this.check(id, rule, title, async () => ({ skip: why }));
  }
}
