import type * as v from 'valibot';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from './standard-schema.ts';

/** A JSON object: what `action.input` must be. */
type InputObject = Record<string, unknown>;

/**
 * A schema that validates with Standard Schema v1 (`~standard.validate`) and converts itself to
 * JSON Schema with Standard JSON Schema v1 (`~standard.jsonSchema`): zod ≥ 4.2, arktype ≥ 2.1, or a
 * valibot schema wrapped by `toStandardJsonSchema` from `@valibot/to-json-schema`.
 */
export type StandardInputSchema = StandardSchemaV1<InputObject, unknown> &
  StandardJSONSchemaV1<InputObject, unknown>;

/**
 * What an action's `input` may be: a valibot schema, or any Standard Schema that also implements
 * Standard JSON Schema. Its input must be a JSON object.
 */
export type ActionInputSchema = v.GenericSchema<InputObject, unknown> | StandardInputSchema;

/**
 * The validated input `run` receives: the schema's output type, whatever its library.
 *
 * @example
 * const schema = z.object({ accountId: z.string() });
 * type Input = InferActionInput<typeof schema>; // { accountId: string }
 */
export type InferActionInput<TSchema extends ActionInputSchema> =
  StandardSchemaV1.InferOutput<TSchema>;

/**
 * Whether `schema` is a plain valibot schema, validated by valibot itself (its fast path, with
 * messages that never quote the input) rather than through `~standard.validate`.
 */
export function isValibotSchema(
  schema: unknown,
): schema is v.GenericSchema<InputObject, unknown> | v.GenericSchemaAsync<InputObject, unknown> {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    (schema as { kind?: unknown }).kind === 'schema' &&
    typeof (schema as { '~run'?: unknown })['~run'] === 'function'
  );
}
