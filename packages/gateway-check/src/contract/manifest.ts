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
  /** The action's id, as an invoke's `action.id` names it. */
  id: string;
  /** The action's name, as an invoke's `action.name` names it. */
  name: string;
  /** Human-readable title. */
  title: string;
  /** What the action does. */
  description: string;
  /** How the action answers; the contract shows `sync` (`@svc/gateway-kit` adds `async`). */
  executionMode: string;
  /** JSON Schema (object root) describing `action.input`. */
  inputSchema: Record<string, unknown>;
  /** Whether every invoke of the action waits for an approval. */
  requiresApproval: boolean;
  /** What the action may change; the contract shows `read`. */
  sideEffectLevel: string;
  /** Whether running the action twice with the same input has the effect of running it once. */
  idempotent: boolean;
}

/**
 * The document served by `GET /v1/manifest`, as the contract's manifest table lists it.
 *
 * @example
 * const { actions } = await client.manifest();
 */
export interface Manifest {
  /** Date-formatted version label of the manifest. */
  version: string;
  /** The gateway itself. */
  gateway: {
    /** The gateway's id. */
    id: string;
    /** The gateway's display name. */
    name: string;
    /** The gateway's base address. */
    url: string;
    /** How callers authenticate. */
    auth: {
      /** Always `bearer`: `Authorization: Bearer <token>`. */
      type: 'bearer';
    };
    /** What the gateway supports. */
    capabilities: {
      /** Whether some invoke may answer `accepted` with a job. */
      asyncJobs: boolean;
      /** Whether the gateway posts job results to `callbacks.jobResultUrl`. */
      jobCallbacks: boolean;
      /** Whether some invoke may answer `approval_required`. */
      approvals: boolean;
    };
  };
  /** The workflow layer exposed through the gateway. */
  agent: {
    /** The agent's id. */
    id: string;
    /** The agent's display name. */
    name: string;
    /** What the agent does. */
    description: string;
  };
  /** The actions an invoke may name. */
  actions: ActionDescriptor[];
  /** Which callbacks the gateway sends. */
  callbacks: {
    /** Whether job results are posted to `callbacks.jobResultUrl`. */
    jobResults: boolean;
    /** Whether approval outcomes are posted to `callbacks.approvalUrl`. */
    approvals: boolean;
  };
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
