// The hand-written request check and answer of the hand-tuned servers (tuned.mjs, strict.mjs):
// fixtures.mjs `InvokeRequest` written out as plain code, headers read from `rawHeaders`, the body
// read with no array for the common single chunk, and an answer with a flat header list.
import * as v from 'valibot';
import { Timestamp, Url } from '../fixtures.mjs';

export function send(res, status, body) {
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
export function validRequest(body) {
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
export function header(req, name) {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i] === name || raw[i].toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/**
 * Reads a request body of at most `maxBytes`: `done` gets its bytes, or `undefined` when it was
 * larger (nothing past the limit is kept).
 */
export function readBody(req, maxBytes, done) {
  let first;
  let rest;
  let total = 0;
  req.on('data', (chunk) => {
    total += chunk.length;
    if (total > maxBytes) return;
    if (first === undefined) first = chunk;
    else if (rest === undefined) rest = [first, chunk];
    else rest.push(chunk);
  });
  req.on('end', () => {
    if (total > maxBytes) done(undefined);
    else done(rest === undefined ? (first ?? Buffer.alloc(0)) : Buffer.concat(rest, total));
  });
}
