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
  id: string;
  name: string;
  title: string;
  description: string;
  executionMode: ExecutionMode;
  /** JSON Schema (object root) describing `action.input`. */
  inputSchema: Record<string, unknown>;
  requiresApproval: boolean;
  sideEffectLevel: SideEffectLevel;
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
