import * as v from 'valibot';
import { JsonObjectSchema } from './gateway-error.ts';

/**
 * One action as a manifest describes it. `executionMode` and `sideEffectLevel` are open strings:
 * the contract shows `sync` and `read` and leaves the full set of values unsaid.
 *
 * @example
 * const reads = manifest.actions.filter((a: ActionDescriptor) => a.sideEffectLevel === 'read');
 */
export interface ActionDescriptor {
  id: string;
  name: string;
  title: string;
  description: string;
  executionMode: string;
  inputSchema: Record<string, unknown>;
  requiresApproval: boolean;
  sideEffectLevel: string;
  idempotent: boolean;
}

/**
 * The document served by `GET /v1/manifest`, as the contract's manifest table lists it.
 *
 * @example
 * const { actions } = await client.manifest();
 */
export interface Manifest {
  version: string;
  gateway: {
    id: string;
    name: string;
    url: string;
    auth: { type: 'bearer' };
    capabilities: { asyncJobs: boolean; jobCallbacks: boolean; approvals: boolean };
  };
  agent: { id: string; name: string; description: string };
  actions: ActionDescriptor[];
  callbacks: { jobResults: boolean; approvals: boolean };
}

/**
 * Schema of an {@link ActionDescriptor}: every field of the table, typed as listed.
 *
 * @example
 * v.is(LooseActionDescriptorSchema, manifest.actions[0]);
 */
export const LooseActionDescriptorSchema: v.GenericSchema<ActionDescriptor> =
  /* @__PURE__ */ v.looseObject({
    id: v.string(),
    name: v.string(),
    title: v.string(),
    description: v.string(),
    executionMode: v.string(),
    inputSchema: JsonObjectSchema,
    requiresApproval: v.boolean(),
    sideEffectLevel: v.string(),
    idempotent: v.boolean(),
  }) as v.GenericSchema<ActionDescriptor>;

/**
 * Schema of a {@link Manifest}: every field of the contract's table must be present and typed as
 * listed; `version` starts with a `YYYY-MM-DD` date and `gateway.url` is an absolute URL. Fields the
 * contract does not list are allowed (it does not close the manifest).
 *
 * @example
 * const manifest = v.parse(LooseManifestSchema, await response.json());
 */
export const LooseManifestSchema: v.GenericSchema<Manifest> = /* @__PURE__ */ v.looseObject({
  version: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}/, 'Expected a date-formatted version')),
  gateway: v.looseObject({
    id: v.string(),
    name: v.string(),
    url: v.pipe(
      v.string(),
      v.check((value) => URL.canParse(value), 'Expected an absolute URL'),
    ),
    auth: v.looseObject({ type: v.literal('bearer') }),
    capabilities: v.looseObject({
      asyncJobs: v.boolean(),
      jobCallbacks: v.boolean(),
      approvals: v.boolean(),
    }),
  }),
  agent: v.looseObject({ id: v.string(), name: v.string(), description: v.string() }),
  actions: v.array(LooseActionDescriptorSchema),
  callbacks: v.looseObject({ jobResults: v.boolean(), approvals: v.boolean() }),
}) as v.GenericSchema<Manifest>;
