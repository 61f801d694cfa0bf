import * as v from 'valibot';
import { JsonObjectSchema } from './gateway-error.ts';

/** How an action answers: `sync` → `completed`/`rejected`; `async` → `accepted` with a job. */
export type ExecutionMode = 'sync' | 'async';

/**
 * What an action may change. The contract shows `read`; this SDK adds `write` (changes data in
 * a reversible way) and `destructive` (irreversible or external effects). See docs/decisions.md.
 */
export type SideEffectLevel = 'read' | 'write' | 'destructive';

/**
 * One action as the manifest describes it.
 *
 * @example
 * const descriptor: ActionDescriptor = manifest.actions[0]!;
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
  /** `sync` answers `completed`; `async` answers `accepted` with a job. */
  executionMode: ExecutionMode;
  /** JSON Schema (object root) describing `action.input`. */
  inputSchema: Record<string, unknown>;
  /** Whether every invoke of the action waits for an operator's approval. */
  requiresApproval: boolean;
  /** What the action may change. */
  sideEffectLevel: SideEffectLevel;
  /** Whether running the action twice with the same input has the effect of running it once. */
  idempotent: boolean;
}

/**
 * The document served by `GET /v1/manifest`. Every field of the contract's manifest table is
 * always present.
 *
 * @example
 * const manifest: Manifest = gateway.manifest;
 */
export interface Manifest {
  /** Date-formatted version label (`YYYY-MM-DD`). */
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
    /** What the agent does; may be empty. */
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
 * Schema of an {@link ActionDescriptor}.
 *
 * @example
 * v.is(ActionDescriptorSchema, manifest.actions[0]);
 */
export const ActionDescriptorSchema: v.GenericSchema<ActionDescriptor> = v.strictObject({
  id: v.string(),
  name: v.string(),
  title: v.string(),
  description: v.string(),
  executionMode: v.picklist(['sync', 'async']),
  inputSchema: JsonObjectSchema,
  requiresApproval: v.boolean(),
  sideEffectLevel: v.picklist(['read', 'write', 'destructive']),
  idempotent: v.boolean(),
});

/**
 * Schema of a {@link Manifest}; unknown properties are rejected.
 *
 * @example
 * const manifest = v.parse(ManifestSchema, await response.json());
 */
export const ManifestSchema: v.GenericSchema<Manifest> = v.strictObject({
  version: v.pipe(v.string(), v.isoDate()),
  gateway: v.strictObject({
    id: v.string(),
    name: v.string(),
    url: v.pipe(v.string(), v.url()),
    auth: v.strictObject({ type: v.literal('bearer') }),
    capabilities: v.strictObject({
      asyncJobs: v.boolean(),
      jobCallbacks: v.boolean(),
      approvals: v.boolean(),
    }),
  }),
  agent: v.strictObject({ id: v.string(), name: v.string(), description: v.string() }),
  actions: v.array(ActionDescriptorSchema),
  callbacks: v.strictObject({ jobResults: v.boolean(), approvals: v.boolean() }),
});
