import * as v from 'valibot';
import { WorkspaceValidationError } from '../errors/validation-error.ts';
import { parseOrThrow } from '../schemas/issues.ts';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads a list response. Accepted forms (the contract does not show them): a bare array,
 * or an object holding the array under the resource name (`skills`, `agents`, `debriefs`),
 * `data`, `items` or `results`. An empty body reads as an empty list.
 */
export function readList<T>(
  body: unknown,
  resource: string,
  schema: v.GenericSchema<unknown, T>,
  validate: boolean,
): T[] {
  if (body === undefined) return [];
  let items: unknown;
  if (Array.isArray(body)) items = body;
  else if (isRecord(body)) {
    items = [resource, 'data', 'items', 'results']
      .map((key) => body[key])
      .find((value) => Array.isArray(value));
  }
  if (!Array.isArray(items)) {
    throw new WorkspaceValidationError('response', `GET /${resource}`, [
      {
        path: '',
        message: `Expected an array, or an object with an array under "${resource}", "data", "items" or "results"`,
      },
    ]);
  }
  if (!validate) return items as T[];
  return parseOrThrow(v.array(schema), items, 'response', `GET /${resource}`);
}

/**
 * Reads a single-object response: a bare object, or one wrapped as `{ <singular>: {...} }` or
 * `{ data: {...} }` (recognised because the outer object lacks the `identity` field).
 * Returns `undefined` for an empty body (e.g. 204).
 */
export function readOne<T>(
  body: unknown,
  names: { singular: string; identity: string; subject: string },
  schema: v.GenericSchema<unknown, T>,
  validate: boolean,
): T | undefined {
  if (body === undefined) return undefined;
  let value: unknown = body;
  if (isRecord(body) && !(names.identity in body)) {
    const key = [names.singular, 'data'].find((candidate) => isRecord(body[candidate]));
    if (key !== undefined) value = body[key];
  }
  return validate ? parseOrThrow(schema, value, 'response', names.subject) : (value as T);
}
