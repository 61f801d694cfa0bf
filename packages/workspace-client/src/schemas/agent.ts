import * as v from 'valibot';
import { nonEmptyString, slug, stringList, text, writerObject } from './common.ts';
import type { SharedStatus } from './skill.ts';

/** Persona a shared agent is based on (the contract's complete list). */
export type BasePersonaId = 'svc-nova' | 'svc-classic';

/** Which gateway actions the agent may call: all of them, or the `allowedActionIds` subset. */
export type GatewayAccessMode = 'all' | 'subset';

/** Base personas accepted by the writer. */
export const BASE_PERSONA_IDS: readonly BasePersonaId[] = /* @__PURE__ */ Object.freeze([
  'svc-nova',
  'svc-classic',
]);

/**
 * A shared agent as you send it (`POST /agents`), keyed by `slug`.
 * The contract does not say which fields are required; this client requires `name` and
 * `slug` (the upsert key is never guessed for agents). `allowedActionIds` is accepted only
 * with `gatewayAccessMode: 'subset'`, and is required then.
 */
export interface SharedAgentInput {
  /** Display name; required, not blank. */
  name: string;
  /** Upsert key; required: not blank, at most 128 characters, no `/`, not `.` or `..`. */
  slug: string;
  /** Free-text description. */
  description?: string | undefined;
  /** Persona the agent is based on. */
  basePersonaId?: BasePersonaId | undefined;
  /** Lifecycle status, e.g. `active`; not blank when given. */
  status?: SharedStatus | undefined;
  /** Which gateway actions the agent may call. */
  gatewayAccessMode?: GatewayAccessMode | undefined;
  /** Action ids the agent may call; required with `gatewayAccessMode: 'subset'`, refused otherwise. */
  allowedActionIds?: string[] | undefined;
  /** Slugs of the shared skills the agent uses. */
  selectedSkillSlugs?: string[] | undefined;
}

/**
 * Strict writer schema of a shared agent (see `SharedAgentInput` for the rules).
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * v.parse(SharedAgentInputSchema, { name: 'Deal desk', slug: 'deal-desk', basePersonaId: 'svc-nova' });
 * ```
 */
export const SharedAgentInputSchema: v.GenericSchema<SharedAgentInput> = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ writerObject({
    name: nonEmptyString,
    slug,
    description: /* @__PURE__ */ v.optional(text),
    basePersonaId: /* @__PURE__ */ v.optional(
      /* @__PURE__ */ v.picklist(BASE_PERSONA_IDS, 'Must be one of "svc-nova", "svc-classic"'),
    ),
    status: /* @__PURE__ */ v.optional(nonEmptyString),
    gatewayAccessMode: /* @__PURE__ */ v.optional(
      /* @__PURE__ */ v.picklist(['all', 'subset'], 'Must be "all" or "subset"'),
    ),
    allowedActionIds: /* @__PURE__ */ v.optional(stringList),
    selectedSkillSlugs: /* @__PURE__ */ v.optional(
      /* @__PURE__ */ v.array(slug, 'Expected an array of skill slugs'),
    ),
  }),
  /* @__PURE__ */ v.rawCheck(({ dataset, addIssue }) => {
    const input = dataset.value as Record<string, unknown> | null;
    if (input === null || typeof input !== 'object') return;
    const subset = input.gatewayAccessMode === 'subset';
    if (!subset && input.allowedActionIds !== undefined) {
      addIssue({
        message: 'Only allowed with gatewayAccessMode "subset"',
        path: [pathItem(input, 'allowedActionIds')],
      });
    }
    if (subset && input.allowedActionIds === undefined) {
      addIssue({
        message: 'Required when gatewayAccessMode is "subset"',
        path: [pathItem(input, 'allowedActionIds')],
      });
    }
  }),
);

function pathItem(input: Record<string, unknown>, key: string): v.ObjectPathItem {
  return { type: 'object', origin: 'value', input, key, value: input[key] };
}

/** A shared agent as the service returns it. Unknown fields are kept. */
export interface SharedAgent {
  /** Display name. */
  name: string;
  /** The agent's upsert key. */
  slug?: string | undefined;
  /** Free-text description. */
  description?: string | undefined;
  /** Persona the agent is based on; may be a value newer than this client. */
  basePersonaId?: BasePersonaId | (string & {}) | undefined;
  /** Lifecycle status, e.g. `active`. */
  status?: SharedStatus | undefined;
  /** Which gateway actions the agent may call; may be a value newer than this client. */
  gatewayAccessMode?: GatewayAccessMode | (string & {}) | undefined;
  /** Action ids the agent may call, with `gatewayAccessMode: 'subset'`. */
  allowedActionIds?: string[] | undefined;
  /** Slugs of the shared skills the agent uses. */
  selectedSkillSlugs?: string[] | undefined;
  [field: string]: unknown;
}

/**
 * Tolerant reader schema of a shared agent: only `name` is required; enum-like fields accept
 * any string so new values from the service do not break old clients.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * v.parse(SharedAgentSchema, { name: 'Deal desk', basePersonaId: 'svc-future' });
 * ```
 */
export const SharedAgentSchema: v.GenericSchema<SharedAgent> = /* @__PURE__ */ v.looseObject({
  name: /* @__PURE__ */ v.string(),
  slug: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  description: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  basePersonaId: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  status: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  gatewayAccessMode: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  allowedActionIds: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.array(/* @__PURE__ */ v.string())),
  selectedSkillSlugs: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.array(/* @__PURE__ */ v.string()),
  ),
});
