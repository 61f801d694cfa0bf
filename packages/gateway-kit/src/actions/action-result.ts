import * as v from 'valibot';

/** What `run` may return: exactly the optional fields of a `completed` answer. */
export interface ActionResultOutput {
  outputText?: string;
  machineSummary?: string;
  dataSchemaVersion?: string;
  data?: Record<string, unknown>;
}

/** A plain object: a Date, Map or class instance would not serialise as a JSON object. */
function isPlainData(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** What `run` may return: exactly the optional fields of a `completed` answer. */
export const ActionResultSchema: v.GenericSchema<ActionResultOutput> = v.strictObject({
  outputText: v.exactOptional(v.string()),
  machineSummary: v.exactOptional(v.string()),
  dataSchemaVersion: v.exactOptional(v.string()),
  // Checked, not copied: `data` is the action's own object and is serialised as it is.
  data: v.exactOptional(v.custom<Record<string, unknown>>(isPlainData, 'Expected a plain object')),
});

/**
 * The check of what `run` returned, specialised: the output {@link ActionResultSchema} gives for
 * a plain object that passes it (its keys in the schema's order, `data` not copied), without the
 * schema's generic machinery; `undefined` for anything else, which the schema then judges.
 *
 * @example
 * const result = parseActionResult(returned) ?? v.safeParse(ActionResultSchema, returned);
 */
export function parseActionResult(value: unknown): ActionResultOutput | undefined {
  if (
    typeof value !== 'object' ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  )
    return undefined;
  const fields = value as Record<string, unknown>;
  for (const key in fields) {
    const field = fields[key];
    if (key === 'data') {
      if (!isPlainData(field)) return undefined;
    } else if (
      (key !== 'outputText' && key !== 'machineSummary' && key !== 'dataSchemaVersion') ||
      typeof field !== 'string'
    )
      return undefined;
  }
  const result: ActionResultOutput = {};
  if ('outputText' in fields) result.outputText = fields.outputText as string;
  if ('machineSummary' in fields) result.machineSummary = fields.machineSummary as string;
  if ('dataSchemaVersion' in fields) result.dataSchemaVersion = fields.dataSchemaVersion as string;
  if ('data' in fields) result.data = fields.data as Record<string, unknown>;
  return result;
}
