import * as v from 'valibot';
import { CallbacksSchema, type InvokeRequest, isDateTime } from './invoke-request.ts';

const MAX_IDENTIFIER = 1024;

type Plain = Record<string, unknown>;

/** An object literal or a `JSON.parse` object: `for…in` then visits its own keys only. */
function isPlain(value: unknown): value is Plain {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

function isText(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length <= maxLength;
}

/**
 * A free-form object (`context`, `action.input`) the schema's record would pass through unchanged:
 * it copies own keys except `__proto__`, `prototype` and `constructor`, so an object holding one
 * of those is left to the schema.
 */
function isPlainRecord(value: unknown): value is Plain {
  return (
    isPlain(value) &&
    !Object.hasOwn(value, 'constructor') &&
    !Object.hasOwn(value, 'prototype') &&
    !Object.hasOwn(value, '__proto__')
  );
}

function firstKeyIs(value: Plain, name: string): boolean {
  for (const key in value) return key === name;
  return false;
}

function meetingOf(value: unknown): InvokeRequest['meeting'] | undefined {
  if (!isPlain(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    if ((key !== 'id' && key !== 'roomName') || !isText(value[key], MAX_IDENTIFIER))
      return undefined;
    keys += 1;
  }
  if (keys !== 2) return undefined;
  // Already the schema's output (its keys in the schema's order): no copy.
  if (firstKeyIs(value, 'id')) return value as InvokeRequest['meeting'];
  return { id: value.id as string, roomName: value.roomName as string };
}

function sessionOf(value: unknown): InvokeRequest['session'] | undefined {
  if (!isPlain(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    const field = value[key];
    if (key === 'id') {
      if (!isText(field, MAX_IDENTIFIER)) return undefined;
    } else if (
      key !== 'mode' ||
      (field !== 'active' && field !== 'passive' && field !== 'listening')
    )
      return undefined;
    keys += 1;
  }
  if (keys !== 2) return undefined;
  if (firstKeyIs(value, 'id')) return value as InvokeRequest['session'];
  return { id: value.id as string, mode: value.mode as InvokeRequest['session']['mode'] };
}

function actionOf(value: unknown): InvokeRequest['action'] | undefined {
  if (!isPlain(value)) return undefined;
  for (const key in value) {
    const field = value[key];
    if (key === 'input') {
      if (!isPlainRecord(field)) return undefined;
    } else if ((key !== 'id' && key !== 'name') || !isText(field, MAX_IDENTIFIER)) return undefined;
  }
  if (!('input' in value)) return undefined;
  const action: InvokeRequest['action'] = { input: value.input as Plain };
  if ('id' in value) action.id = value.id as string;
  if ('name' in value) action.name = value.name as string;
  return action;
}

function callbacksOf(value: unknown): InvokeRequest['callbacks'] | undefined {
  if (!isPlain(value)) return undefined;
  for (const _ in value) {
    // Callback URLs and credentials (async invokes): the schema's own checks.
    const parsed = v.safeParse(CallbacksSchema, value);
    return parsed.success ? parsed.output : undefined;
  }
  return value;
}

/**
 * The request-shape check of `POST /v1/invoke`, specialised: the output `InvokeRequestSchema`
 * would give for a body that passes it, built without the schema's generic machinery (the common
 * case of every invoke). Parts of the body that are already what the schema would output (the
 * same keys in its order) are used as they are rather than copied, so it is for a body the
 * gateway parsed itself, not one shared with other code. `undefined` when the body does not certainly pass — then the schema
 * judges it and names the issues, so refusals are the schema's, word for word. Never accepts
 * what the schema refuses (`parse-invoke-request.test.ts` checks both on generated bodies).
 *
 * @example
 * const request = parseInvokeRequest(body) ?? v.safeParse(InvokeRequestSchema, body);
 */
export function parseInvokeRequest(value: unknown): InvokeRequest | undefined {
  if (!isPlain(value)) return undefined;
  let required = 0;
  for (const key in value) {
    const field = value[key];
    switch (key) {
      case 'invocationId':
        if (!isText(field, MAX_IDENTIFIER)) return undefined;
        required += 1;
        break;
      case 'idempotencyKey':
        if (!isText(field, MAX_IDENTIFIER) || field.length === 0) return undefined;
        break;
      case 'traceId':
        if (!isText(field, MAX_IDENTIFIER)) return undefined;
        break;
      case 'deadlineAt':
        if (typeof field !== 'string' || !isDateTime(field)) return undefined;
        break;
      case 'context':
        if (!isPlainRecord(field)) return undefined;
        required += 1;
        break;
      case 'meeting':
      case 'session':
      case 'action':
      case 'callbacks':
        // Checked below, once all keys are known to be the contract's.
        required += 1;
        break;
      default:
        return undefined;
    }
  }
  if (required !== 6) return undefined;
  const meeting = meetingOf(value.meeting);
  const session = meeting && sessionOf(value.session);
  const action = session && actionOf(value.action);
  const callbacks = action && callbacksOf(value.callbacks);
  if (!callbacks) return undefined;
  // The schema's output: its keys in the schema's order, optional ones only when sent.
  const request: InvokeRequest = {
    invocationId: value.invocationId as string,
  } as InvokeRequest;
  if ('idempotencyKey' in value) request.idempotencyKey = value.idempotencyKey as string;
  if ('traceId' in value) request.traceId = value.traceId as string;
  if ('deadlineAt' in value) request.deadlineAt = value.deadlineAt as string;
  request.meeting = meeting as InvokeRequest['meeting'];
  request.session = session as InvokeRequest['session'];
  request.action = action as InvokeRequest['action'];
  request.context = value.context as Plain;
  request.callbacks = callbacks;
  return request;
}
