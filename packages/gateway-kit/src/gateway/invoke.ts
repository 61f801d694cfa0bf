import * as v from 'valibot';
import { ActionRejection } from '../actions/action-rejection.ts';
import type { Action, ActionContext, ActionResult, Invocation } from '../actions/define-action.ts';
import type { Principal } from '../auth/principal.ts';
import { JsonObjectSchema } from '../contract/gateway-error.ts';
import { type InvokeRequest, InvokeRequestSchema } from '../contract/invoke-request.ts';
import type { CompletedResponse, RejectedResponse } from '../contract/invoke-response.ts';
import { gatewayError } from '../errors/error-catalogue.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { inspectJsonValue, parseJsonBody } from '../http/parse-json.ts';
import { errorReply, jsonReply } from '../http/replies.ts';
import type { GatewayLogger } from './logger.ts';
import { describeIssues, SAFE_PARSE_CONFIG } from './validation-issues.ts';

/** What the invoke route needs from the gateway. */
export interface InvokeRouteOptions {
  readonly actionsById: ReadonlyMap<string, Action>;
  readonly actionsByName: ReadonlyMap<string, Action>;
  readonly maxBodyBytes: number;
  readonly logger: GatewayLogger;
  readonly now: () => number;
}

const ActionResultSchema = v.strictObject({
  outputText: v.exactOptional(v.string()),
  machineSummary: v.exactOptional(v.string()),
  dataSchemaVersion: v.exactOptional(v.string()),
  data: v.exactOptional(JsonObjectSchema),
});

const TIMED_OUT: unique symbol = Symbol('timed out');

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const semicolon = value.indexOf(';');
  const type = (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json';
}

const JSON_PROBLEM_MESSAGES = {
  invalid_json: 'The request body is not valid JSON.',
  too_deep: 'The request body nests too deeply.',
  forbidden_key: 'The request body uses the reserved key "__proto__".',
} as const;

/** Reads and checks the JSON body of a call: 415, 413 and 400 answers, or the parsed value. */
async function readJson(
  call: GatewayCall,
  maxBodyBytes: number,
): Promise<{ ok: true; value: unknown } | { ok: false; reply: GatewayReply }> {
  if (!isJsonContentType(call.header('content-type'))) {
    return { ok: false, reply: errorReply('unsupported_media_type') };
  }
  const declared = call.header('content-length');
  if (declared !== undefined && Number(declared) > maxBodyBytes) {
    return { ok: false, reply: tooLarge(maxBodyBytes) };
  }
  const body = await call.readBody(maxBodyBytes);
  if (body.kind === 'too_large') return { ok: false, reply: tooLarge(maxBodyBytes) };
  if (body.kind === 'parsed') {
    const problem = inspectJsonValue(body.value);
    return problem
      ? {
          ok: false,
          reply: errorReply('malformed_json', { message: JSON_PROBLEM_MESSAGES[problem] }),
        }
      : { ok: true, value: body.value };
  }
  const parsed = parseJsonBody(body.bytes);
  return parsed.ok
    ? parsed
    : {
        ok: false,
        reply: errorReply('malformed_json', { message: JSON_PROBLEM_MESSAGES[parsed.problem] }),
      };
}

function tooLarge(maxBodyBytes: number): GatewayReply {
  return errorReply('payload_too_large', {
    message: `The request body is larger than ${maxBodyBytes} bytes.`,
    details: { maxBytes: maxBodyBytes },
  });
}

/** Finds the one action a request names, by `action.id`, `action.name`, or both (which must agree). */
function resolveAction(
  request: InvokeRequest,
  options: InvokeRouteOptions,
): { ok: true; action: Action } | { ok: false; reply: GatewayReply } {
  const { id, name } = request.action;
  if (id === undefined && name === undefined) {
    return {
      ok: false,
      reply: errorReply('invalid_request', {
        message: 'The request must name one action by action.id or action.name.',
        details: { issues: [{ path: 'action', message: 'Expected action.id or action.name' }] },
      }),
    };
  }
  const byId = id === undefined ? undefined : options.actionsById.get(id);
  const byName = name === undefined ? undefined : options.actionsByName.get(name);
  const action = byId ?? byName;
  if (!action || (id !== undefined && !byId) || (name !== undefined && !byName)) {
    return { ok: false, reply: errorReply('unknown_action') };
  }
  if (byId && byName && byId !== byName) {
    return {
      ok: false,
      reply: errorReply('invalid_request', {
        message: 'action.id and action.name name different actions.',
        details: { issues: [{ path: 'action.name', message: 'Does not match action.id' }] },
      }),
    };
  }
  return { ok: true, action };
}

function invocationOf(request: InvokeRequest): Invocation {
  const invocation: {
    -readonly [K in keyof Invocation]: Invocation[K];
  } = {
    invocationId: request.invocationId,
    meeting: request.meeting,
    session: request.session,
    context: request.context,
  };
  if (request.traceId !== undefined) invocation.traceId = request.traceId;
  if (request.idempotencyKey !== undefined) invocation.idempotencyKey = request.idempotencyKey;
  if (request.deadlineAt !== undefined) invocation.deadlineAt = request.deadlineAt;
  return invocation;
}

function rejected(error: RejectedResponse['error']): GatewayReply {
  return jsonReply(200, { status: 'rejected', error } satisfies RejectedResponse);
}

/**
 * `POST /v1/invoke` after authentication: read and validate the body, resolve the one action,
 * validate its input, run it within its time budget and answer with one of the contract's
 * invoke responses.
 */
export async function handleInvoke(
  call: GatewayCall,
  principal: Principal,
  options: InvokeRouteOptions,
): Promise<GatewayReply> {
  const body = await readJson(call, options.maxBodyBytes);
  if (!body.ok) return body.reply;

  const parsed = v.safeParse(InvokeRequestSchema, body.value, SAFE_PARSE_CONFIG);
  if (!parsed.success) {
    return errorReply('invalid_request', { details: describeIssues(parsed.issues) });
  }
  const request = parsed.output;

  const resolved = resolveAction(request, options);
  if (!resolved.ok) return resolved.reply;
  const action = resolved.action;

  const input = await v.safeParseAsync(action.input, request.action.input, SAFE_PARSE_CONFIG);
  if (!input.success) {
    return errorReply('invalid_input', { details: describeIssues(input.issues, 'action.input') });
  }

  const now = options.now();
  const deadline = request.deadlineAt === undefined ? Infinity : Date.parse(request.deadlineAt);
  if (deadline <= now) {
    return rejected(
      gatewayError('deadline_exceeded', { message: 'The deadline had already passed.' }),
    );
  }
  return runSync(
    action,
    input.output,
    request,
    principal,
    call,
    options,
    Math.min(action.timeoutMs, deadline - now),
  );
}

async function runSync(
  action: Action,
  input: unknown,
  request: InvokeRequest,
  principal: Principal,
  call: GatewayCall,
  options: InvokeRouteOptions,
  budgetMs: number,
): Promise<GatewayReply> {
  const controller = new AbortController();
  const clientSignal = call.signal;
  const onClientGone = (): void => controller.abort(clientSignal?.reason);
  clientSignal?.addEventListener('abort', onClientGone, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException('The action ran out of time.', 'TimeoutError'));
      resolve(TIMED_OUT);
    }, budgetMs);
  });
  const context: ActionContext = {
    invocation: invocationOf(request),
    principal,
    signal: controller.signal,
  };

  let outcome: ActionResult | ActionRejection | undefined | typeof TIMED_OUT;
  try {
    outcome = await Promise.race([
      // `then` turns a synchronous throw into a rejection handled below.
      Promise.resolve().then(() => action.run(input, context)),
      timedOut,
    ]);
  } catch (error) {
    if (error instanceof ActionRejection) return rejected(error.error);
    return crashed(action, request, options, error);
  } finally {
    clearTimeout(timer);
    clientSignal?.removeEventListener('abort', onClientGone);
  }

  if (outcome === TIMED_OUT) return rejected(gatewayError('deadline_exceeded'));
  if (outcome instanceof ActionRejection) return rejected(outcome.error);
  const result = v.safeParse(ActionResultSchema, outcome ?? {});
  if (!result.success) {
    return crashed(
      action,
      request,
      options,
      new TypeError('run() returned a value that is not an action result'),
    );
  }
  const completed: CompletedResponse = { status: 'completed', ...result.output };
  try {
    return jsonReply(200, completed);
  } catch (error) {
    // e.g. a BigInt or a cycle in `data`.
    return crashed(action, request, options, error);
  }
}

function crashed(
  action: Action,
  request: InvokeRequest,
  options: InvokeRouteOptions,
  error: unknown,
): GatewayReply {
  options.logger.error('action failed', {
    actionId: action.id,
    invocationId: request.invocationId,
    error,
  });
  return errorReply('internal_error', { retryable: action.idempotent });
}
