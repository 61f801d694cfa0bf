import * as v from 'valibot';
import { nonEmptyString, slug, stringList, text, writerObject } from './common.ts';

/** Where a shared skill is used. The contract shows `realtime` and `brain`; others pass through. */
export type SkillTarget = 'realtime' | 'brain' | (string & {});

/** Lifecycle status. The contract shows `active`; others pass through. */
export type SharedStatus = 'active' | (string & {});

/**
 * A shared skill as you send it (`POST /skills`). `slug` is the upsert key; when omitted
 * the service derives it from `name` (see `slugify`).
 */
export interface SharedSkillInput {
  /** Display name; required, not blank. */
  name: string;
  /** Upsert key: not blank, at most 128 characters, no `/`, not `.` or `..`; from `name` when omitted. */
  slug?: string | undefined;
  /** What the assistant does with the skill; required, not blank. */
  instructions: string;
  /** Free-text description. */
  description?: string | undefined;
  /** Where the skill is used, e.g. `realtime`, `brain`; each entry not blank. */
  targets?: SkillTarget[] | undefined;
  /** Lifecycle status, e.g. `active`; not blank when given. */
  status?: SharedStatus | undefined;
}

/**
 * Strict writer schema of a shared skill: `name` and `instructions` required and non-empty,
 * `slug` (when given) non-blank, at most 128 characters, without `/` and not `.`/`..`;
 * unknown fields (and `organizationId`) refused.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * v.parse(SharedSkillInputSchema, { name: 'Pricing', instructions: 'Quote list prices.' });
 * ```
 */
export const SharedSkillInputSchema: v.GenericSchema<SharedSkillInput> =
  /* @__PURE__ */ writerObject({
    name: nonEmptyString,
    slug: /* @__PURE__ */ v.optional(slug),
    instructions: nonEmptyString,
    description: /* @__PURE__ */ v.optional(text),
    targets: /* @__PURE__ */ v.optional(stringList),
    status: /* @__PURE__ */ v.optional(nonEmptyString),
  });

/**
 * A shared skill as the service returns it. Unknown fields (ids, timestamps, ...) are kept.
 */
export interface SharedSkill {
  /** Display name. */
  name: string;
  /** The skill's upsert key. */
  slug?: string | undefined;
  /** What the assistant does with the skill. */
  instructions?: string | undefined;
  /** Free-text description. */
  description?: string | undefined;
  /** Where the skill is used, e.g. `realtime`, `brain`. */
  targets?: SkillTarget[] | undefined;
  /** Lifecycle status, e.g. `active`. */
  status?: SharedStatus | undefined;
  [field: string]: unknown;
}

/**
 * Tolerant reader schema of a shared skill: only `name` is required, every other known field
 * is type-checked when present, unknown fields are kept.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * v.parse(SharedSkillSchema, { name: 'Pricing', slug: 'pricing', id: 'sk_1' }).id; // 'sk_1'
 * ```
 */
export const SharedSkillSchema: v.GenericSchema<SharedSkill> = /* @__PURE__ */ v.looseObject({
  name: /* @__PURE__ */ v.string(),
  slug: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  instructions: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  description: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  targets: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.array(/* @__PURE__ */ v.string())),
  status: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
});
