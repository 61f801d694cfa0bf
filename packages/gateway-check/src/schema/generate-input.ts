import { samplePattern } from './regex-sample.ts';

// Values for the JSON Schema subset valibot and zod produce: objects (properties, required,
// additionalProperties), strings (minLength, maxLength, pattern, enum, format), numbers and
// integers (minimum, maximum, exclusive bounds, multipleOf), booleans, null, arrays, const, enum,
// anyOf/oneOf (first branch that can be generated). Anything else is reported as skipped.

/**
 * A generated value, or why none could be generated.
 *
 * @example
 * const generated: Generated = generate({ type: 'object' }); // { value: {} }
 */
export type Generated =
  | {
      /** A value the schema accepts. */
      readonly value: unknown;
    }
  | {
      /** Why no value could be generated: the schema path and the reason. */
      readonly skip: string;
    };

type Schema = Record<string, unknown>;

const FORMATS: Record<string, string> = {
  email: 'gateway-check@example.com',
  'idn-email': 'gateway-check@example.com',
  uri: 'https://example.com/gateway-check',
  url: 'https://example.com/gateway-check',
  'uri-reference': 'https://example.com/gateway-check',
  iri: 'https://example.com/gateway-check',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  'date-time': '2026-01-15T09:30:00Z',
  date: '2026-01-15',
  time: '09:30:00Z',
  duration: 'PT1M',
  uuid: '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

const MAX_DEPTH = 32;
const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const skip = (path: string, why: string): Generated => ({ skip: `${path}: ${why}` });

function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') ?? type[0];
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema)
    return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  if ('pattern' in schema || 'minLength' in schema || 'maxLength' in schema || 'format' in schema)
    return 'string';
  if ('minimum' in schema || 'maximum' in schema) return 'number';
  return undefined;
}

function generateString(schema: Schema, path: string): Generated {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  let value: string;
  if (typeof schema.format === 'string') {
    const sample = FORMATS[schema.format];
    if (sample === undefined) return skip(path, `format "${schema.format}" is not generated`);
    value = sample;
  } else if (typeof schema.pattern === 'string') {
    const sample = samplePattern(schema.pattern);
    if ('skip' in sample) return skip(path, sample.skip);
    value = sample.value;
  } else {
    value = 'gateway-check'.slice(0, Math.max(min, Math.min(max, 13)));
    value = value.padEnd(min, 'x');
  }
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
    return skip(path, 'format and pattern together are not generated');
  }
  if (value.length < min || value.length > max) {
    return skip(path, `no sample of length ${min}..${max} for this pattern or format`);
  }
  return { value };
}

function generateNumber(schema: Schema, integer: boolean, path: string): Generated {
  const num = (key: string): number | undefined =>
    typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
  let lo = num('minimum') ?? -Infinity;
  let hi = num('maximum') ?? Infinity;
  const exLo = num('exclusiveMinimum') ?? (schema.exclusiveMinimum === true ? lo : undefined);
  const exHi = num('exclusiveMaximum') ?? (schema.exclusiveMaximum === true ? hi : undefined);
  const step = num('multipleOf') ?? (integer ? 1 : undefined);
  if (exLo !== undefined) lo = Math.max(lo, step ? Math.floor(exLo / step + 1) * step : exLo + 1);
  if (exHi !== undefined) hi = Math.min(hi, step ? Math.ceil(exHi / step - 1) * step : exHi - 1);
  if (step !== undefined) {
    if (Number.isFinite(lo)) lo = Math.ceil(lo / step) * step;
    if (Number.isFinite(hi)) hi = Math.floor(hi / step) * step;
  }
  let value = 0;
  if (value < lo) value = lo;
  if (value > hi) value = hi;
  if (!(value >= lo && value <= hi) || !Number.isFinite(value)) {
    return skip(path, 'no number fits minimum, maximum and multipleOf');
  }
  if (integer && !Number.isInteger(value)) return skip(path, 'no integer fits its bounds');
  return { value: Object.is(value, -0) ? 0 : value };
}

function generateObject(schema: Schema, path: string, depth: number): Generated {
  if ('patternProperties' in schema) return skip(path, 'patternProperties is not generated');
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const keys = [...required];
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const key of Object.keys(properties)) {
    if (keys.length >= minProperties) break;
    if (!keys.includes(key)) keys.push(key);
  }
  if (keys.length < minProperties) return skip(path, 'minProperties above the properties listed');
  const value: Record<string, unknown> = {};
  for (const key of keys) {
    const sub =
      properties[key] ??
      (schema.additionalProperties === undefined ? true : schema.additionalProperties);
    const generated = generate(sub, `${path}.${key}`, depth + 1);
    if ('skip' in generated) return generated;
    value[key] = generated.value;
  }
  return { value };
}

function generateArray(schema: Schema, path: string, depth: number): Generated {
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  if (min > 64) return skip(path, 'minItems above 64 is not generated');
  if (schema.uniqueItems === true && min > 1) return skip(path, 'uniqueItems is not generated');
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const rest = Array.isArray(schema.items)
    ? (schema.additionalItems ?? true)
    : (schema.items ?? true);
  const value: unknown[] = [];
  for (let i = 0; i < Math.max(min, tuple.length); i++) {
    const generated = generate(tuple[i] ?? rest, `${path}[${i}]`, depth + 1);
    if ('skip' in generated) return generated;
    value.push(generated.value);
  }
  return { value };
}

/**
 * A value valid against `schema`, at `path` (used in skip reasons), or why none was generated.
 *
 * @example
 * generate({ type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^acc_\\d+$' } } });
 * // { value: { id: 'acc_1' } }
 */
export function generate(schema: unknown, path = 'input', depth = 0): Generated {
  if (schema === true) return { value: 'gateway-check' };
  if (schema === false) return skip(path, 'the schema accepts nothing');
  if (!isObject(schema)) return skip(path, 'not a schema');
  if (depth > MAX_DEPTH) return skip(path, `nested deeper than ${MAX_DEPTH} levels`);
  if ('$ref' in schema) return skip(path, '$ref is not generated');
  for (const key of ['allOf', 'not', 'if', 'dependentSchemas', 'dependencies', 'contains']) {
    if (key in schema) return skip(path, `${key} is not generated`);
  }
  if ('const' in schema) return { value: schema.const };
  if (Array.isArray(schema.enum)) {
    return schema.enum.length > 0 ? { value: schema.enum[0] } : skip(path, 'empty enum');
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    if (key === 'oneOf' && branches.length > 1)
      return skip(path, 'oneOf with several branches is not generated');
    const reasons: string[] = [];
    for (const branch of branches) {
      const generated = generate(branch, path, depth + 1);
      if ('value' in generated) return generated;
      reasons.push(generated.skip);
    }
    return skip(path, `no branch of ${key} could be generated (${reasons.join('; ')})`);
  }
  switch (typeOf(schema)) {
    case 'object':
      return generateObject(schema, path, depth);
    case 'string':
      return generateString(schema, path);
    case 'integer':
      return generateNumber(schema, true, path);
    case 'number':
      return generateNumber(schema, false, path);
    case 'boolean':
      return { value: true };
    case 'null':
      return { value: null };
    case 'array':
      return generateArray(schema, path, depth);
    default:
      return { value: 'gateway-check' };
  }
}

/** One way of making a valid input invalid. */
export interface InvalidInput {
  /** What was broken, e.g. `without the required property "accountId"`. */
  readonly change: string;
  readonly value: Record<string, unknown>;
}

const WRONG_VALUE: Record<string, unknown> = {
  string: 12_345,
  number: 'gateway-check',
  integer: 'gateway-check',
  boolean: 'gateway-check',
  object: 'gateway-check',
  array: 'gateway-check',
  null: 'gateway-check',
};

/**
 * Inputs that break an object `schema` in one way each, derived from the valid `input`: an unknown
 * property (when `additionalProperties` is `false`), a missing required property, a required
 * property of the wrong type. Empty when the schema constrains none of these.
 *
 * @example
 * invalidInputs(schema, { accountId: 'acc_1' }).map((i) => i.change);
 */
export function invalidInputs(schema: Schema, input: Record<string, unknown>): InvalidInput[] {
  const out: InvalidInput[] = [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  if (schema.additionalProperties === false) {
    out.push({
      change: 'with an unknown property "gatewayCheckUnknown"',
      value: { ...input, gatewayCheckUnknown: true },
    });
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const [first] = required;
  if (first !== undefined) {
    const { [first]: _removed, ...rest } = input;
    out.push({ change: `without the required property "${first}"`, value: rest });
  }
  for (const key of required) {
    const sub = properties[key];
    if (!isObject(sub) || typeof sub.type !== 'string' || 'anyOf' in sub || 'oneOf' in sub)
      continue;
    const wrong = WRONG_VALUE[sub.type];
    if (wrong === undefined || 'enum' in sub || 'const' in sub) continue;
    out.push({
      change: `with "${key}" of a type other than ${sub.type}`,
      value: { ...input, [key]: wrong },
    });
    break;
  }
  return out;
}
