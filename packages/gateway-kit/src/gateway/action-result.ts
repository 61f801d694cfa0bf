import * as v from 'valibot';
import { JsonObjectSchema } from '../contract/gateway-error.ts';

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
  data: v.exactOptional(JsonObjectSchema),
});
