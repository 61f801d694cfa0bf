import type { Action } from '../actions/define-action.ts';
import type { AuthConfig } from '../auth/auth-config.ts';
import type { Principal } from '../auth/principal.ts';
import type { CallbackDispatcherOptions } from '../callbacks/callback-dispatcher.ts';
import type { ApprovalPolicy } from '../context/gateway-runtime.ts';
import type {
  Approval,
  ApprovalDecision,
  ApprovalJob,
  ApprovalListOptions,
  ApprovalPage,
} from '../contract/approval.ts';
import type { Manifest } from '../contract/manifest.ts';
import type { GatewayHooks } from '../observe/hooks.ts';
import type { GatewayTracer } from '../observe/tracing.ts';
import type { RecordStore } from '../records/record-store.ts';
import type { GatewayLimits, Quotas } from '../runtime/limits.ts';
import type { GatewayLogger } from '../runtime/logger.ts';
import type { JobStore } from '../store/job-store.ts';

// The gateway's public types, apart from the code that builds it: routes, adapters and option
// checks depend on these, never on `createGateway` itself.

/** Everything `createGateway` accepts. */
export interface GatewayOptions {
  /** Identity of the gateway in the manifest. Without `url`, the URL is taken from each request. */
  readonly gateway: {
    /** The gateway's id in the manifest. */
    readonly id: string;
    /** The gateway's display name in the manifest. */
    readonly name: string;
    /** Absolute http(s) URL the gateway is reached at, for the manifest and job and approval links. */
    readonly url?: string;
  };
  /** The workflow layer exposed through the gateway; defaults to the gateway's id and name. */
  readonly agent?: {
    /** The agent's id in the manifest. */
    readonly id: string;
    /** The agent's display name in the manifest. */
    readonly name: string;
    /** The agent's description in the manifest; defaults to `''`. */
    readonly description?: string;
  };
  /** The actions the gateway serves, built with `defineAction`; no two with one id or one name. */
  readonly actions: readonly Action[];
  /** How callers authenticate: static bearer tokens, or a `verify` function. */
  readonly auth: AuthConfig;
  /** Manifest version label, `YYYY-MM-DD`. Defaults to the UTC date the gateway was created. */
  readonly version?: string;
  /** Path prefix the gateway is mounted under, e.g. `/gateway`. Defaults to none. */
  readonly basePath?: string;
  /**
   * DNS-rebinding protection for `gateway.fetch` served on a loopback address (`127.0.0.1`,
   * `::1`) by Deno, Bun or another Fetch server: a web page whose name an attacker points at
   * 127.0.0.1 is same-origin with the server and may send any request, with a token it knows
   * (a demo's development token). With `true`, a request whose `Host` — or `Origin`, when sent —
   * names another host than `localhost`, `*.localhost`, `127.x.x.x` or `[::1]` is answered `403
   * forbidden_host`, before authentication; `{ allowedHosts }` also accepts the names a deliberate
   * setup uses (exact names, or `.example.test` for a domain and its subdomains). Defaults to
   * `false`: a `fetch` handler cannot see the address it is served on. `serve()` and
   * `toNodeHandler()` (`@svc/gateway-kit/node`) check this by themselves on loopback.
   *
   * @example
   * const gateway = createGateway({ ...options, loopbackOnly: true });
   * Deno.serve({ hostname: '127.0.0.1', port: 8787 }, gateway.fetch);
   */
  readonly loopbackOnly?: boolean | { readonly allowedHosts: readonly string[] };
  /**
   * Largest accepted request body in bytes. Defaults to 256 KiB: room for the largest record a
   * job or approval keeps (`limits.maxStoredBytes`) and the JSON around it. Raise it together
   * with `limits` when your actions take larger inputs.
   */
  readonly maxBodyBytes?: number;
  /**
   * Where problems (and, with `debug`, routing decisions) are written. Defaults to `console`
   * (errors and warnings only). Never given tokens, callback credentials or inputs.
   */
  readonly logger?: GatewayLogger;
  /**
   * Lifecycle hooks: invoke received and answered, job state changed, approval requested and
   * decided, callback delivered or failed. Never awaited: they change neither the answer nor its
   * latency; errors and slow hooks are logged. See docs/observability.md.
   */
  readonly hooks?: GatewayHooks;
  /**
   * An OpenTelemetry tracer (`trace.getTracer(name)` from `@opentelemetry/api`): spans for each
   * request, action run, job run and callback attempt. Without one, nothing is traced.
   */
  readonly tracer?: GatewayTracer;
  /** Where async jobs live. Defaults to a {@link MemoryJobStore} (single process). */
  readonly jobStore?: JobStore;
  /** Where idempotency and approval records live. Defaults to a {@link MemoryRecordStore}. */
  readonly recordStore?: RecordStore;
  /** How long a sync answer is replayed for a repeated idempotency key. Defaults to 24 h. */
  readonly idempotencyTtlMs?: number;
  /**
   * Budgets of what one request makes the gateway keep: `context` (64 KiB), the record kept per
   * job or approval (128 KiB), a kept result (256 KiB), and the nodes (objects, arrays, members)
   * of `context` and of `action.input` (8 192 each). Over a budget: `413
   * payload_too_large` naming the field and the limit (a job result: the job fails with
   * `result_too_large`). See docs/security.md.
   */
  readonly limits?: Partial<GatewayLimits>;
  /**
   * Per-principal budgets: queued or running jobs (100) and the bytes of requests they hold
   * (8 MiB), pending approvals (50) and live idempotency keys (1 000). Over one: `429 quota_exceeded` with `Retry-After`; other
   * principals are not affected. See docs/security.md.
   */
  readonly quotas?: Partial<Quotas>;
  /** Per-request approval policy, and how long approvals stay pending and readable. */
  readonly approvals?: {
    /** Require approval per request (beyond actions with `requiresApproval`); a string is the reason. */
    readonly policy?: ApprovalPolicy;
    /** How long an approval stays pending before it expires. Defaults to 15 minutes. */
    readonly ttlMs?: number;
    /**
     * How long a decided or expired approval stays readable. Defaults to 24 h, the default
     * retention of finished jobs: keep the two equal, so an approval's job link resolves as long
     * as the approval does.
     */
    readonly retentionMs?: number;
    /**
     * How often this instance looks for pending approvals past their `expiresAt` that no
     * instance expired yet (the one that took the request stopped, or restarted): it expires
     * them and sends their `expired` callback. The instance that took the request expires its
     * own on time regardless. Defaults to 5 000 ms; `0` turns the sweep off.
     */
    readonly sweepIntervalMs?: number;
  };
  /**
   * Outbound callbacks (job results, approval outcomes): delivery settings, SSRF policy and the
   * Standard Webhooks signing secret. `false` switches callbacks off (and the manifest says so).
   */
  readonly callbacks?: CallbackDispatcherOptions | false;
  /**
   * Keeps background work (jobs, callbacks) alive after the response on platforms that need it,
   * e.g. a serverless `waitUntil`. A `waitUntil` of the context passed as `fetch`'s third argument
   * (Workers style) is used too.
   */
  readonly waitUntil?: (work: Promise<unknown>) => void;
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number;
}

/** Operator-side access to approvals (e.g. for an approvals page). */
export interface GatewayApprovals {
  /**
   * A page of approvals with a status (default `pending`), oldest first: an array, with
   * `nextCursor` when there may be more (pass it back as `cursor`). Reads an index per status, so
   * a page costs what it returns however many approvals the store holds.
   */
  list(options?: ApprovalListOptions): Promise<ApprovalPage>;
  /** One approval of any principal, or `undefined` if unknown or past its retention. */
  get(approvalId: string): Promise<Approval | undefined>;
  /**
   * Decides a pending approval, once: approved runs the action as a job, returned with its links
   * (as `GET /v1/approvals/{id}` shows it). Throws `ApprovalDecisionError` for an unknown, already
   * decided or expired approval.
   */
  decide(
    approvalId: string,
    decision: ApprovalDecision,
  ): Promise<{
    /** The approval as `get` shows it after the decision. */
    approval: Approval;
    /** The job the approval started, as created (`queued`); absent for a denial. */
    job?: ApprovalJob;
  }>;
  /**
   * Runs the sweep of `approvals.sweepIntervalMs` now: expires the pending approvals past their
   * `expiresAt` that no instance expired (with their `expired` callback) and finishes decisions
   * an instance left halfway; resolves with how many approvals it touched. The gateway sweeps on
   * its own; call it where timers do not outlive a request (a Durable Object's alarm, a scheduled
   * job), then `gateway.idle()` to wait for the callbacks it queued.
   *
   * @example
   * export default { scheduled: async () => { await gateway.approvals.sweep(); await gateway.idle(); } };
   */
  sweep(): Promise<number>;
}

/** What {@link Gateway.authenticate} resolves to: the caller's principal, or the gateway's refusal. */
export type Authentication =
  | {
      /** The authenticated caller. */
      readonly principal: Principal;
      /** Absent when the request is authenticated. */
      readonly refusal?: undefined;
    }
  | {
      /** Absent when the request is refused. */
      readonly principal?: undefined;
      /** The gateway's answer to the request's credentials (`401` or `503`). */
      readonly refusal: Response;
    };

/**
 * A gateway: one Web-standard `fetch` entry point serving the whole contract.
 *
 * @example
 * Deno.serve(gateway.fetch);
 */
export interface Gateway {
  /**
   * Serves one request. Never rejects: every failure is an error-envelope response. The optional
   * third argument is a Workers-style execution context whose `waitUntil` keeps jobs alive.
   */
  fetch(
    request: Request,
    env?: unknown,
    context?: { waitUntil?(work: Promise<unknown>): void },
  ): Promise<Response>;
  /**
   * Authenticates a request as the gateway's routes do (bearer token or `auth.verify`), for
   * handlers served next to the gateway that count or scope by caller: resolves to the principal,
   * or to the answer the gateway gives the request's credentials (`401 unauthorized`, `503
   * unavailable` when `verify` does not answer in time). Never rejects.
   *
   * @example
   * const checked = await gateway.authenticate(request);
   * if ('refusal' in checked) return checked.refusal;
   * console.log(checked.principal.id);
   */
  authenticate(request: Request): Promise<Authentication>;
  /** The manifest document (with `gateway.url` empty when no URL was configured). */
  readonly manifest: Manifest;
  /** Operator-side access to approvals: list, get and decide. */
  readonly approvals: GatewayApprovals;
  /** Settles when every background job and callback in flight has settled. */
  idle(): Promise<void>;
  /** Stops timers and callback retries, and closes the default stores. */
  close(): Promise<void>;
}
