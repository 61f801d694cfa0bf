// (s) The hand-tuned server (tuned.mjs) plus the work the kit must do on every sync invoke and bare
// does not: the bound on what the kit can be worth against bare with its rules kept. Written
// straight through for this one action (no router, no hooks, no outcome types), it adds:
// - the Host header required (RFC 9112) and the request path normalised (no `/.` segments);
// - the media type compared exactly (any parameters, any case) and a declared Content-Length over
//   the limit refused before reading;
// - strict UTF-8 (a TextDecoder with `fatal`), and the `__proto__`/depth guard on the text;
// - the action found by id, the invocation built, the deadline checked, a run context handed over;
// - the run's time budget: a timer armed a microtask later unless the action settled;
// - the action's result checked for the contract's fields and serialized whole.
// Only run when named (BENCH_SERVERS=s, or `node bench/paired.mjs bare strict`); no target rests
// on it.
import { createServer } from 'node:http';
import * as v from 'valibot';
import { authorized, envelope, LookupInput, runLookup } from '../fixtures.mjs';
import { announce } from './announce.mjs';
import { header, readBody, send, validRequest } from './hand-check.mjs';

const MAX_BODY = 1024 * 1024;
const MAX_DEPTH = 64;
const TIMEOUT_MS = 10_000;
const decoder = new TextDecoder('utf-8', { fatal: true });
const ACTIONS = new Map([['lookup-account', { run: runLookup, input: LookupInput }]]);
const PRINCIPAL = Object.freeze({ id: 'default' });
const SETTLED = Promise.resolve();

/** Whether the text can hold no `__proto__` key and nest no deeper than MAX_DEPTH. */
function harmless(text) {
  if (text.includes('__proto__') || text.includes('\\u')) return false;
  let openers = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++openers > MAX_DEPTH) return false;
    }
  }
  return true;
}

const plainValue = (x) => x === null || ['string', 'number', 'boolean'].includes(typeof x);
const plainObject = (x) =>
  typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === Object.prototype;

/** The contract's result fields, checked and copied; `undefined` for anything else. */
function actionResult(value) {
  if (!plainObject(value)) return undefined;
  for (const key in value) {
    const field = value[key];
    if (key === 'data') {
      if (!plainObject(field) || !Object.values(field).every(plainValue)) return undefined;
    } else if (!['outputText', 'machineSummary', 'dataSchemaVersion'].includes(key)) {
      return undefined;
    } else if (typeof field !== 'string') return undefined;
  }
  return { ...value };
}

class RunContext {
  constructor(invocation, principal) {
    this.invocation = invocation;
    this.principal = principal;
  }
}

function handle(res, bytes) {
  let text;
  try {
    text = decoder.decode(bytes);
  } catch {
    return send(res, 400, envelope('malformed_json', 'The request body is not UTF-8.'));
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return send(res, 400, envelope('malformed_json', 'The request body is not valid JSON.'));
  }
  if (!harmless(text)) return send(res, 400, envelope('malformed_json', 'Refused body.'));
  if (!validRequest(body)) return send(res, 422, envelope('invalid_request', 'Invalid request.'));
  const action = ACTIONS.get(body.action.id);
  if (action === undefined) return send(res, 422, envelope('unknown_action', 'Unknown action.'));
  const invocation = {
    invocationId: body.invocationId,
    meeting: body.meeting,
    session: body.session,
    context: body.context,
  };
  if (body.traceId !== undefined) invocation.traceId = body.traceId;
  const input = v.safeParse(action.input, body.action.input);
  if (!input.success) return send(res, 422, envelope('invalid_input', 'Invalid input.'));
  if (body.deadlineAt !== undefined && Date.parse(body.deadlineAt) <= Date.now()) {
    return send(res, 200, '{"status":"rejected","error":{"code":"deadline_exceeded"}}');
  }
  let timer;
  let settled = false;
  Promise.resolve(action.run(input.output, new RunContext(invocation, PRINCIPAL))).then(
    (produced) => {
      settled = true;
      clearTimeout(timer);
      const result = actionResult(produced ?? {});
      if (result === undefined) return send(res, 500, envelope('internal_error', 'Bad result.'));
      send(res, 200, JSON.stringify({ status: 'completed', ...result }));
    },
  );
  SETTLED.then(() => {
    if (!settled) timer = setTimeout(() => send(res, 200, '{"status":"rejected"}'), TIMEOUT_MS);
  });
}

function isJson(contentType) {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  const type = semicolon === -1 ? contentType : contentType.slice(0, semicolon);
  return type.trim().toLowerCase() === 'application/json';
}

const server = createServer({ keepAliveTimeout: 65_000, requireHostHeader: false }, (req, res) => {
  if (req.headers.host === undefined) return send(res, 400, envelope('malformed_request', 'Host.'));
  const query = req.url.indexOf('?');
  const path = query === -1 ? req.url : req.url.slice(0, query);
  if (req.method !== 'POST' || path !== '/v1/invoke' || path.includes('/.')) {
    return send(res, 404, envelope('not_found', 'Not found.'));
  }
  if (!authorized(header(req, 'authorization'))) {
    return send(res, 401, envelope('unauthorized', 'Missing or invalid bearer token.'));
  }
  if (!isJson(header(req, 'content-type'))) {
    return send(res, 415, envelope('unsupported_media_type', 'Expected application/json.'));
  }
  if (Number(req.headers['content-length']) > MAX_BODY) {
    return send(res, 413, envelope('payload_too_large', 'Too large.'));
  }
  // Through a promise, as the kit's body reader is.
  new Promise((resolve) => readBody(req, MAX_BODY, resolve)).then((bytes) =>
    bytes === undefined
      ? send(res, 413, envelope('payload_too_large', 'Too large.'))
      : handle(res, bytes),
  );
});

announce(server);
