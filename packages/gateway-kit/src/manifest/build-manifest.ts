import { toJsonSchema } from '@valibot/to-json-schema';
import type { Action } from '../actions/define-action.ts';
import { isValibotSchema, type StandardInputSchema } from '../actions/input-schema.ts';
import type { ActionDescriptor, Manifest } from '../contract/manifest.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';

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

/** The JSON Schema dialect of the manifest's `inputSchema`s, whatever the schema library. */
const INPUT_JSON_SCHEMA_TARGET = 'draft-07';

const STANDARD_HINT =
  'use a valibot schema, zod ≥ 4.2, arktype ≥ 2.1, or wrap a valibot schema with toStandardJsonSchema';

/** The JSON Schema of a non-valibot schema, from its vendor's own Standard JSON Schema converter. */
function standardJsonSchema(action: Action): unknown {
  const standard = (action.input as { '~standard'?: Partial<StandardInputSchema['~standard']> })[
    '~standard'
  ];
  if (typeof standard?.validate !== 'function') {
    throw new GatewayConfigError(
      `Action "${action.id}": its input is not a schema (it implements neither valibot nor Standard Schema; ${STANDARD_HINT}).`,
    );
  }
  if (typeof standard.jsonSchema?.input !== 'function') {
    throw new GatewayConfigError(
      `Action "${action.id}": its input schema (${String(standard.vendor)}) cannot be published as JSON Schema: it implements Standard Schema but not Standard JSON Schema (~standard.jsonSchema; ${STANDARD_HINT}).`,
    );
  }
  return standard.jsonSchema.input({ target: INPUT_JSON_SCHEMA_TARGET });
}

/**
 * Converts an action's input schema to the JSON Schema published in the manifest (input type mode,
 * draft-07, object root): valibot schemas with `@valibot/to-json-schema`, any other schema with its
 * own `~standard.jsonSchema.input`. Throws {@link GatewayConfigError} when it cannot be converted.
 *
 * @example
 * inputJsonSchema(defineAction({ id: 'a', input: z.object({ q: z.string() }), run: () => ({}) }));
 * // { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { q: { type: 'string' } }, ... }
 */
export function inputJsonSchema(action: Action): Record<string, unknown> {
  let converted: unknown;
  try {
    converted = isValibotSchema(action.input)
      ? toJsonSchema(action.input, { typeMode: 'input', errorMode: 'throw' })
      : standardJsonSchema(action);
    // A copy of plain JSON: what the manifest serves, safe from later changes by the vendor.
    converted = JSON.parse(JSON.stringify(converted));
  } catch (cause) {
    if (cause instanceof GatewayConfigError) throw cause;
    throw new GatewayConfigError(
      `Action "${action.id}": its input schema cannot be expressed as JSON Schema (${(cause as Error).message}).`,
    );
  }
  const schema = converted as Record<string, unknown> | null;
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object') {
    throw new GatewayConfigError(
      `Action "${action.id}": its input schema must describe an object (got ${JSON.stringify(schema?.type ?? 'no type')}).`,
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
