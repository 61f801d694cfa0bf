import type * as v from 'valibot';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '../contract/standard-schema.ts';

/**
 * A schema that validates with Standard Schema v1 (`~standard.validate`) and converts itself to
 * JSON Schema with Standard JSON Schema v1 (`~standard.jsonSchema`): zod ≥ 4.2, arktype ≥ 2.1, or a
 * valibot schema wrapped by `toStandardJsonSchema` from `@valibot/to-json-schema`.
 *
 * @example
 * const input: StandardInputSchema = z.object({ accountId: z.string() });
 */
export type StandardInputSchema = StandardSchemaV1<Record<string, unknown>, unknown> &
  StandardJSONSchemaV1<Record<string, unknown>, unknown>;

/**
 * What an action's `input` may be: a valibot schema, or any Standard Schema that also implements
 * Standard JSON Schema. Its input must be a JSON object.
 *
 * @example
 * const schemas: ActionInputSchema[] = [v.object({ q: v.string() }), z.object({ q: z.string() }), type({ q: 'string' })];
 */
export type ActionInputSchema =
  | v.GenericSchema<Record<string, unknown>, unknown>
  | StandardInputSchema;

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
): schema is
  | v.GenericSchema<Record<string, unknown>, unknown>
  | v.GenericSchemaAsync<Record<string, unknown>, unknown> {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    (schema as { kind?: unknown }).kind === 'schema' &&
    typeof (schema as { '~run'?: unknown })['~run'] === 'function'
  );
}
