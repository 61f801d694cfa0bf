import * as v from 'valibot';

/** What `run` may return: exactly the optional fields of a `completed` answer. */
export const ActionResultSchema: v.GenericSchema<{
  outputText?: string;
  machineSummary?: string;
  dataSchemaVersion?: string;
  data?: Record<string, unknown>;
}> = v.strictObject({
  outputText: v.exactOptional(v.string()),
  machineSummary: v.exactOptional(v.string()),
  dataSchemaVersion: v.exactOptional(v.string()),
  // Checked, not copied: `data` is the action's own object and is serialised as it is.
  data: v.exactOptional(
    v.custom<Record<string, unknown>>(
      // A plain object: a Date, Map or class instance would not serialise as a JSON object.
      (value) => {
        if (typeof value !== 'object' || value === null) return false;
        const prototype = Object.getPrototypeOf(value);
        return prototype === Object.prototype || prototype === null;
      },
      'Expected a plain object',
    ),
  ),
});
