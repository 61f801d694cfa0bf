// Whether a manifest's inputSchema is a JSON Schema (draft-07 / 2019-09 / 2020-12 keywords): every
// known keyword has a value of the type the specification gives it, and the root is an object schema.

type Json = unknown;
type Problem = string;

const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas'];
const SCHEMAS = [
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const COUNTS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];
const NUMBERS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
const STRINGS = ['$schema', '$id', '$ref', '$anchor', '$comment', 'title', 'description', 'format'];
const MAX_DEPTH = 64;

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkSchema(schema: Json, path: string, depth: number, problems: Problem[]): void {
  if (problems.length >= 20) return;
  if (typeof schema === 'boolean') return;
  if (!isObject(schema)) {
    problems.push(`${path}: a schema must be an object or a boolean`);
    return;
  }
  if (depth > MAX_DEPTH) {
    problems.push(`${path}: nested deeper than ${MAX_DEPTH} levels`);
    return;
  }
  const at = (key: string) => `${path}.${key}`;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') {
      const list = Array.isArray(value) ? value : [value];
      const valid =
        list.length > 0 &&
        list.every((t) => typeof t === 'string' && TYPES.has(t)) &&
        new Set(list).size === list.length;
      if (!valid)
        problems.push(`${at(key)}: must be a JSON Schema type or a list of distinct types`);
    } else if (SCHEMA_MAPS.includes(key)) {
      if (!isObject(value)) problems.push(`${at(key)}: must be an object of schemas`);
      else
        for (const [name, sub] of Object.entries(value))
          checkSchema(sub, `${at(key)}.${name}`, depth + 1, problems);
    } else if (SCHEMAS.includes(key)) {
      checkSchema(value, at(key), depth + 1, problems);
    } else if (key === 'items') {
      if (Array.isArray(value)) checkList(value, at(key), depth, problems);
      else checkSchema(value, at(key), depth + 1, problems);
    } else if (SCHEMA_LISTS.includes(key)) {
      if (!Array.isArray(value) || value.length === 0)
        problems.push(`${at(key)}: must be a non-empty list of schemas`);
      else checkList(value, at(key), depth, problems);
    } else if (key === 'required') {
      const valid =
        Array.isArray(value) &&
        value.every((name) => typeof name === 'string') &&
        new Set(value).size === value.length;
      if (!valid) problems.push(`${at(key)}: must be a list of distinct property names`);
    } else if (key === 'enum') {
      if (!Array.isArray(value)) problems.push(`${at(key)}: must be a list`);
    } else if (COUNTS.includes(key)) {
      if (!Number.isInteger(value) || (value as number) < 0)
        problems.push(`${at(key)}: must be a non-negative integer`);
    } else if (NUMBERS.includes(key)) {
      if (typeof value !== 'number' && typeof value !== 'boolean')
        problems.push(`${at(key)}: must be a number`);
    } else if (key === 'multipleOf') {
      if (typeof value !== 'number' || value <= 0)
        problems.push(`${at(key)}: must be a number above 0`);
    } else if (key === 'uniqueItems') {
      if (typeof value !== 'boolean') problems.push(`${at(key)}: must be a boolean`);
    } else if (key === 'pattern') {
      if (typeof value !== 'string' || !compiles(value))
        problems.push(`${at(key)}: must be a regular expression`);
    } else if (STRINGS.includes(key)) {
      if (typeof value !== 'string') problems.push(`${at(key)}: must be a string`);
    }
  }
}

function checkList(list: readonly Json[], path: string, depth: number, problems: Problem[]): void {
  for (const [i, sub] of list.entries()) checkSchema(sub, `${path}[${i}]`, depth + 1, problems);
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * The reasons `schema` is not a JSON Schema with an object root (`type: 'object'`); empty when it is.
 *
 * @example
 * checkInputSchema({ type: 'object', properties: { id: { type: 'string' } } }); // []
 */
export function checkInputSchema(schema: Json): Problem[] {
  const problems: Problem[] = [];
  if (!isObject(schema)) return ['inputSchema: must be a JSON Schema object'];
  if (schema.type !== 'object') problems.push("inputSchema.type: the root must be 'object'");
  checkSchema(schema, 'inputSchema', 0, problems);
  return problems;
}
