import type { BodyReadResult, GatewayCall, GatewayReply } from './gateway-call.ts';
import { inspectJsonValue, parseJsonBody } from './parse-json.ts';
import { errorReply } from './replies.ts';

/** Whether a `Content-Type` is `application/json` (any parameters, any case). */
export function isJsonContentType(value: string | undefined): boolean {
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

/**
 * The one reader of JSON request bodies (invoke, approval decisions): 415 for another content
 * type, 413 past `maxBodyBytes` (declared or streamed), 400 `malformed_json` for invalid JSON, a
 * body nested deeper than `MAX_JSON_DEPTH` (64), past `maxNodes` objects, arrays and members, or a `__proto__` key, also in a body a framework
 * parsed already; else the value and its size in bytes (`undefined` when parsed already).
 *
 * @example
 * const body = await readJsonBody(call, 16 * 1024);
 * if (!body.ok) return body.reply;
 */
export function readJsonBody(
  call: GatewayCall,
  maxBodyBytes: number,
  maxNodes: number = Number.POSITIVE_INFINITY,
): Promise<JsonBody> {
  const refused = refuseJsonHeaders(call, maxBodyBytes);
  if (refused) return Promise.resolve({ ok: false, reply: refused });
  // Not `async`/`await`: one promise hop per body instead of two.
  return call.readBody(maxBodyBytes).then((body) => judgeJsonBody(body, maxBodyBytes, maxNodes));
}

/**
 * The first half of {@link readJsonBody}, for a caller that awaits `call.readBody` itself (one
 * promise fewer): the refusal a request gets from its headers alone — 415 for another content
 * type, 413 for a declared length past `maxBodyBytes` — or `undefined`.
 */
export function refuseJsonHeaders(
  call: GatewayCall,
  maxBodyBytes: number,
): GatewayReply | undefined {
  if (!isJsonContentType(call.header('content-type'))) return errorReply('unsupported_media_type');
  const declared = call.header('content-length');
  if (declared !== undefined && Number(declared) > maxBodyBytes) return bodyTooLarge(maxBodyBytes);
  return undefined;
}

/** What {@link readJsonBody} resolves to. */
export type JsonBody =
  | {
      readonly ok: true;
      readonly value: unknown;
      readonly bytes: number | undefined;
      readonly nodes: number | undefined;
    }
  | { readonly ok: false; readonly reply: GatewayReply };

/** The second half of {@link readJsonBody}: judges a body once read. */
export function judgeJsonBody(
  body: BodyReadResult,
  maxBodyBytes: number,
  maxNodes: number,
): JsonBody {
  if (body.kind === 'too_large') return { ok: false, reply: bodyTooLarge(maxBodyBytes) };
  if (body.kind === 'parsed') {
    const problem = inspectJsonValue(body.value);
    return problem
      ? {
          ok: false,
          reply: errorReply('malformed_json', { message: JSON_PROBLEM_MESSAGES[problem] }),
        }
      : { ok: true, value: body.value, bytes: undefined, nodes: undefined };
  }
  const parsed = parseJsonBody(body.bytes, maxNodes);
  if (parsed.ok)
    return { ok: true, value: parsed.value, bytes: body.bytes.byteLength, nodes: parsed.nodes };
  if (parsed.problem === 'too_many_nodes')
    return { ok: false, reply: tooManyNodes('body', maxNodes) };
  return {
    ok: false,
    reply: errorReply('malformed_json', { message: JSON_PROBLEM_MESSAGES[parsed.problem] }),
  };
}

/**
 * The 413 for a part of the request holding more objects, arrays and members than its budget:
 * names the field and the limit, never the value.
 */
export function tooManyNodes(field: string, maxNodes: number): GatewayReply {
  return errorReply('payload_too_large', {
    message: `${field} holds more than ${maxNodes} objects, arrays and members.`,
    details: { field, maxNodes },
  });
}

/** The 413 for a request body over `maxBodyBytes`. */
export function bodyTooLarge(maxBodyBytes: number): GatewayReply {
  return errorReply('payload_too_large', {
    message: `The request body is larger than ${maxBodyBytes} bytes.`,
    details: { field: 'body', maxBytes: maxBodyBytes },
  });
}
