// (t) A hand-tuned node:http server: the same checks and answers as bare.mjs, written for speed by
// a team that knows the request shape. The reference for what doing this work can cost on
// node:http; only run when named (BENCH_SERVERS=t, or `node bench/paired.mjs bare tuned`).
// Against bare.mjs it swaps valibot's InvokeRequest for a check written out by hand (valibot
// still judges the rare optional `deadlineAt` and callback URLs, so the rules are the same),
// reads the two headers from `rawHeaders` (no headers object is built) and answers with a flat
// header list and the 200 body from a template.
import { createServer } from 'node:http';
import * as v from 'valibot';
import { authorized, envelope, LookupInput, runLookup, Timestamp, Url } from '../fixtures.mjs';
import { announce } from './announce.mjs';

const MAX_BODY = 1024 * 1024;

function send(res, status, body) {
  res.writeHead(status, [
    'content-type',
    'application/json',
    'cache-control',
    'no-store',
    'content-length',
    Buffer.byteLength(body),
  ]);
  res.end(body);
}

const isObject = (x) => typeof x === 'object' && x !== null && !Array.isArray(x);
const identifier = (x) => typeof x === 'string' && x.length >= 1 && x.length <= 1024;
const text = (x, max) => typeof x === 'string' && x.length <= max;
const optional = (x, check) => x === undefined || check(x);
// The field checks that take an argument, made once (not a closure per request).
const shortText = (x) => text(x, 1024);
const longText = (x) => text(x, 8192);
const timestamp = (x) => v.is(Timestamp, x);
const url = (x) => v.is(Url, x);
const onlyKeys = (object, allowed) => {
  for (const key in object) if (!allowed.has(key)) return false;
  return true;
};
const TOP = new Set([
  'invocationId',
  'idempotencyKey',
  'traceId',
  'deadlineAt',
  'meeting',
  'session',
  'action',
  'context',
  'callbacks',
]);
const MEETING = new Set(['id', 'roomName']);
const SESSION = new Set(['id', 'mode']);
const ACTION = new Set(['input', 'id', 'name']);
const CALLBACKS = new Set(['jobResultUrl', 'approvalUrl', 'authorization']);
const MODES = new Set(['active', 'passive', 'listening']);

/** fixtures.mjs `InvokeRequest`, written out. */
function validRequest(body) {
  if (!isObject(body) || !onlyKeys(body, TOP) || !identifier(body.invocationId)) return false;
  if (!optional(body.idempotencyKey, identifier)) return false;
  if (!optional(body.traceId, shortText)) return false;
  if (!optional(body.deadlineAt, timestamp)) return false;
  const { meeting, session, action, context, callbacks } = body;
  if (!isObject(meeting) || !onlyKeys(meeting, MEETING)) return false;
  if (!identifier(meeting.id) || !text(meeting.roomName, 1024)) return false;
  if (!isObject(session) || !onlyKeys(session, SESSION)) return false;
  if (!identifier(session.id) || !MODES.has(session.mode)) return false;
  if (!isObject(action) || !onlyKeys(action, ACTION) || !isObject(action.input)) return false;
  if (!optional(action.id, identifier) || !optional(action.name, identifier)) return false;
  if (!isObject(context) || !isObject(callbacks) || !onlyKeys(callbacks, CALLBACKS)) return false;
  return (
    optional(callbacks.jobResultUrl, url) &&
    optional(callbacks.approvalUrl, url) &&
    optional(callbacks.authorization, longText)
  );
}

/** A request header without building `req.headers` (names compared as sent, then lower-cased). */
function header(req, name) {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i] === name || raw[i].toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

function handle(res, bytes) {
  let body;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return send(res, 400, envelope('malformed_json', 'The request body is not valid JSON.'));
  }
  if (!validRequest(body)) return send(res, 422, envelope('invalid_request', 'Invalid request.'));
  if (body.action.id !== 'lookup-account') {
    return send(res, 422, envelope('unknown_action', 'Unknown action.'));
  }
  const input = v.safeParse(LookupInput, body.action.input);
  if (!input.success) return send(res, 422, envelope('invalid_input', 'Invalid input.'));
  Promise.resolve(runLookup(input.output)).then((result) =>
    send(
      res,
      200,
      `{"status":"completed","outputText":${JSON.stringify(result.outputText)},"data":${JSON.stringify(result.data)}}`,
    ),
  );
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/invoke') {
    return send(res, 404, envelope('not_found', 'Not found.'));
  }
  if (!authorized(header(req, 'authorization'))) {
    return send(res, 401, envelope('unauthorized', 'Missing or invalid bearer token.'));
  }
  if (!header(req, 'content-type')?.startsWith('application/json')) {
    return send(res, 415, envelope('unsupported_media_type', 'Expected application/json.'));
  }
  let first;
  let rest;
  let total = 0;
  req.on('data', (chunk) => {
    total += chunk.length;
    if (total > MAX_BODY) return;
    if (first === undefined) first = chunk;
    else if (rest === undefined) rest = [first, chunk];
    else rest.push(chunk);
  });
  req.on('end', () => {
    if (total > MAX_BODY) return send(res, 413, envelope('payload_too_large', 'Too large.'));
    handle(res, rest === undefined ? (first ?? Buffer.alloc(0)) : Buffer.concat(rest, total));
  });
});

announce(server);
