import { toJsonSchema } from '@valibot/to-json-schema';
import type { Action } from '../actions/define-action.ts';
import type { ActionDescriptor, Manifest } from '../contract/manifest.ts';
import { GatewayConfigError } from '../gateway/gateway-config-error.ts';

/** What the manifest says about the gateway itself. */
export interface ManifestInit {
  readonly version: string;
  readonly gateway: { readonly id: string; readonly name: string; readonly url: string };
  readonly agent: { readonly id: string; readonly name: string; readonly description: string };
  readonly actions: readonly Action[];
  readonly capabilities: {
    readonly asyncJobs: boolean;
    readonly jobCallbacks: boolean;
    readonly approvals: boolean;
  };
}

/**
 * Converts an action's valibot input schema to the JSON Schema published in the manifest
 * (input type mode, object root). Throws {@link GatewayConfigError} when it cannot be converted.
 */
export function inputJsonSchema(action: Action): Record<string, unknown> {
  let schema: Record<string, unknown>;
  try {
    schema = toJsonSchema(action.input, { typeMode: 'input', errorMode: 'throw' }) as Record<
      string,
      unknown
    >;
  } catch (cause) {
    throw new GatewayConfigError(
      `Action "${action.id}": its input schema cannot be expressed as JSON Schema (${(cause as Error).message}).`,
    );
  }
  if (schema.type !== 'object') {
    throw new GatewayConfigError(
      `Action "${action.id}": its input schema must describe an object (got ${JSON.stringify(schema.type ?? 'no type')}).`,
    );
  }
  return schema;
}

/** Builds the manifest document. Called once per gateway (and per base URL when none is configured). */
export function buildManifest(
  init: ManifestInit,
  inputSchemas: readonly Record<string, unknown>[],
): Manifest {
  const actions: ActionDescriptor[] = init.actions.map((action, index) => ({
    id: action.id,
    name: action.name,
    title: action.title,
    description: action.description,
    executionMode: action.executionMode,
    inputSchema: inputSchemas[index]!,
    requiresApproval: action.requiresApproval,
    sideEffectLevel: action.sideEffectLevel,
    idempotent: action.idempotent,
  }));
  return {
    version: init.version,
    gateway: {
      id: init.gateway.id,
      name: init.gateway.name,
      url: init.gateway.url,
      auth: { type: 'bearer' },
      capabilities: { ...init.capabilities },
    },
    agent: { ...init.agent },
    actions,
    callbacks: {
      jobResults: init.capabilities.jobCallbacks,
      approvals: init.capabilities.approvals && init.capabilities.jobCallbacks,
    },
  };
}
