import { ApprovalDecisionError } from '../approvals/approval-decision-error.ts';
import type { AuthConfig } from '../auth/auth-config.ts';
import { createAuthenticator } from '../auth/bearer-auth.ts';
import type { ApprovalStatus } from '../contract/approval.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import { envelopeReply, errorReply, jsonReply } from '../http/replies.ts';
import { BASE_PATH } from '../http/routes.ts';
import { isRecordStoreFullError } from '../records/record-store-full-error.ts';
import { type Refuse, refusalFor } from '../runtime/config-refusal.ts';
import { VERIFY_TIMEOUT_MS } from '../runtime/limits.ts';
import type { GatewayLogger } from '../runtime/logger.ts';
import { TIMED_OUT, withinBudget } from '../runtime/time-budget.ts';
import { isJobStoreFullError } from '../store/job-store-full-error.ts';
import { isStoreUnavailableError } from '../store/store-errors.ts';
import type { GatewayApprovals } from './create-gateway.ts';
import { HANDLE_CALL, WANTS_QUERY } from './handle-call.ts';
import { validateAuth } from './validate-auth.ts';
import { fromWebRequest, toWebResponse } from './web-call.ts';

/**
 * Options of {@link createApprovalsHandler}.
 *
 * @example
 * const options: ApprovalsHandlerOptions = {
 *   auth: { tokens: [{ token: process.env.OPERATOR_TOKEN!, principal: { id: 'ops' } }] },
 *   basePath: '/operator/api',
 * };
 */
export interface ApprovalsHandlerOptions {
  /**
   * Who may list and decide approvals: the operators' own tokens (never the gateway's callers'),
   * or a `verify` function. The principal's `id` is recorded as `decidedBy`.
   */
  readonly auth: AuthConfig;
  /** Path prefix the routes are served under, e.g. `/operator/api`. Defaults to none. */
  readonly basePath?: string;
  /** Largest accepted decision body in bytes. Defaults to 16 KiB. */
  readonly maxBodyBytes?: number;
  /** Where unexpected failures are reported. Defaults to `console.error`. */
  readonly logger?: Pick<GatewayLogger, 'error'>;
}

/**
 * The operators' approvals API as a Web-standard `fetch` handler; `toNodeHandler` from
 * `@svc/gateway-kit/node` serves it on `node:http` and Express too.
 *
 * @example
 * Deno.serve((request) =>
 *   new URL(request.url).pathname.startsWith('/operator/api/')
 *     ? approvals.fetch(request)
 *     : gateway.fetch(request),
 * );
 */
export interface ApprovalsHandler {
  /** Serves one request. Never rejects: every failure is an error-envelope response. */
  fetch(request: Request): Promise<Response>;
}

const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];
const MAX_NOTE_LENGTH = 1_000;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;

type Route =
  | { readonly route: 'list'; readonly method: 'GET' }
  | { readonly route: 'get'; readonly method: 'GET'; readonly approvalId: string }
  | { readonly route: 'decide'; readonly method: 'POST'; readonly approvalId: string };

/**
 * A `fetch` handler for operators over `gateway.approvals`, with its own authentication:
 *
 * - `GET {basePath}/approvals?status=pending&limit=50&cursor=…` → `{ approvals, nextCursor? }`,
 *   oldest first (`status` one of pending, approved, denied, expired; `limit` 1–500);
 * - `GET {basePath}/approvals/{approvalId}` → `{ approval }`;
 * - `POST {basePath}/approvals/{approvalId}/decision` with `{ "approved": boolean, "note"?: string }`
 *   → `{ approval, job? }`, `decidedBy` being the operator's principal id.
 *
 * Failures answer the gateway's error envelope: 401 `unauthorized`, 404 `approval_not_found`,
 * 409 `approval_already_decided` / `approval_expired`, 422 `invalid_request`, 400 `malformed_json`,
 * 413, 415, 503.
 *
 * @example
 * const approvals = createApprovalsHandler(gateway, {
 *   auth: { tokens: [{ token: process.env.OPERATOR_TOKEN!, principal: { id: 'ops' } }] },
 *   basePath: '/operator/api',
 * });
 * // Hono: app.all('/operator/api/*', (c) => approvals.fetch(c.req.raw));
 */
export function createApprovalsHandler(
  gateway: { readonly approvals: GatewayApprovals },
  options: ApprovalsHandlerOptions,
): ApprovalsHandler {
  const refuse: Refuse = refusalFor('createApprovalsHandler');
  if (typeof options !== 'object' || options === null)
    refuse('options', options, 'expected { auth, basePath?, maxBodyBytes?, logger? }.');
  validateAuth(options.auth, 'createApprovalsHandler');
  const basePath = options.basePath ?? '';
  if (basePath !== '' && !BASE_PATH.test(String(basePath)))
    refuse('basePath', basePath, 'expected "/prefix" (no trailing slash).');
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    refuse('maxBodyBytes', maxBodyBytes, 'expected a positive integer.');
  if (options.logger !== undefined && typeof options.logger?.error !== 'function')
    refuse('logger', options.logger, 'expected { error(message, fields), warn?, info?, debug? }.');
  const authenticate = createAuthenticator(options.auth);
  const logger = options.logger ?? { error: (message, fields) => console.error(message, fields) };
  const approvals = gateway.approvals;

  async function route(call: GatewayCall): Promise<GatewayReply> {
    const matched = matchRoute(call.path, basePath);
    if (!matched) return errorReply('not_found');
    if (call.method !== matched.method)
      return errorReply('method_not_allowed', undefined, { allow: matched.method });
    const authenticated = authenticate(call.header('authorization'), call);
    const principal =
      authenticated instanceof Promise
        ? await withinBudget(authenticated, { budgetMs: VERIFY_TIMEOUT_MS })
        : authenticated;
    if (principal === TIMED_OUT)
      return errorReply('unavailable', { message: 'Authentication did not answer in time.' });
    if (!principal)
      return errorReply('unauthorized', undefined, {
        'www-authenticate': 'Bearer realm="approvals"',
      });

    switch (matched.route) {
      case 'list':
        return list(new URLSearchParams(call.query ?? ''));
      case 'get': {
        const approval = await approvals.get(matched.approvalId);
        return approval ? jsonReply(200, { approval }) : errorReply('approval_not_found');
      }
      case 'decide':
        return decide(call, matched.approvalId, principal.id);
    }
  }

  async function list(query: URLSearchParams): Promise<GatewayReply> {
    const status = (query.get('status') ?? 'pending') as ApprovalStatus;
    if (!STATUSES.includes(status))
      return invalid('status', `Expected one of ${STATUSES.join(', ')}.`);
    const rawLimit = query.get('limit');
    const limit = rawLimit === null ? DEFAULT_PAGE : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      return invalid('limit', `Expected an integer from 1 to ${MAX_PAGE}.`);
    const cursor = query.get('cursor') ?? undefined;
    let page: Awaited<ReturnType<GatewayApprovals['list']>>;
    try {
      page = await approvals.list({ status, limit, ...(cursor ? { cursor } : {}) });
    } catch (error) {
      if (error instanceof RangeError)
        return invalid('cursor', 'Expected a nextCursor this API returned.');
      throw error;
    }
    return jsonReply(200, {
      approvals: [...page],
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    });
  }

  async function decide(
    call: GatewayCall,
    approvalId: string,
    decidedBy: string,
  ): Promise<GatewayReply> {
    const body = await readJsonBody(call, maxBodyBytes);
    if (!body.ok) return body.reply;
    const { approved, note } = (body.value ?? {}) as { approved?: unknown; note?: unknown };
    if (typeof approved !== 'boolean') return invalid('approved', 'Expected true or false.');
    if (note !== undefined && (typeof note !== 'string' || note.length > MAX_NOTE_LENGTH))
      return invalid('note', `Expected a string of at most ${MAX_NOTE_LENGTH} characters.`);
    try {
      const decided = await approvals.decide(approvalId, {
        approved,
        decidedBy,
        ...(note ? { note } : {}),
      });
      return jsonReply(200, decided);
    } catch (error) {
      if (!(error instanceof ApprovalDecisionError)) throw error;
      if (error.code === 'approval_not_found') return errorReply('approval_not_found');
      return envelopeReply(409, { code: error.code, message: error.message, retryable: false });
    }
  }

  async function handle(call: GatewayCall): Promise<GatewayReply> {
    try {
      return await route(call);
    } catch (error) {
      // A store at capacity or unreachable is temporary, as the gateway answers it: the approval
      // stays pending and the same decision may be sent again.
      if (
        isJobStoreFullError(error) ||
        isRecordStoreFullError(error) ||
        isStoreUnavailableError(error)
      )
        return errorReply('unavailable');
      logger.error('approvals request failed', { path: call.path, error });
      return errorReply('internal_error', { message: 'The approvals API failed unexpectedly.' });
    }
  }

  const handler = {
    fetch: async (request: Request): Promise<Response> =>
      toWebResponse(await handle(fromWebRequest(request, undefined, true))),
    [HANDLE_CALL]: handle,
    [WANTS_QUERY]: true,
  };
  return handler as ApprovalsHandler;
}

function invalid(path: string, message: string): GatewayReply {
  return errorReply('invalid_request', {
    message: `${path}: ${message}`,
    details: { issues: [{ path, message }] },
  });
}

/** The route a path names below `basePath`, or `undefined`. */
function matchRoute(path: string, basePath: string): Route | undefined {
  if (basePath) {
    if (!path.startsWith(`${basePath}/`)) return undefined;
    path = path.slice(basePath.length);
  }
  if (path === '/approvals') return { route: 'list', method: 'GET' };
  const match = /^\/approvals\/([^/]+)(\/decision)?$/.exec(path);
  if (!match) return undefined;
  let approvalId: string;
  try {
    approvalId = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  return match[2]
    ? { route: 'decide', method: 'POST', approvalId }
    : { route: 'get', method: 'GET', approvalId };
}
