import * as v from 'valibot';
import { nonEmptyString, stringList, text, writerObject } from './common.ts';

/** The debrief contract version this client writes. */
export const DEBRIEF_CONTRACT_VERSION = 'svc-debrief-v1' as const;

/** How the assistant delivers the debrief. The contract shows `manual`; others pass through. */
export type DebriefDelivery = 'manual' | (string & {});
/** How canvas pages are shown. The contract shows `replace`; others pass through. */
export type CanvasDeliveryMode = 'replace' | (string & {});
/** When a section is spoken. The contract shows `wait_for_prompt`; others pass through. */
export type SectionDelivery = 'wait_for_prompt' | (string & {});
/** Debrief status. The contract shows `ready`; others pass through. */
export type DebriefStatus = 'ready' | (string & {});

/** One canvas page: a title, the HTML shown on the canvas, and what is said over it. */
export type DebriefPage = {
  /** The page's title; not blank. */
  title: string;
  /** The HTML shown on the canvas; not blank. */
  html: string;
  /** What is said while the page is shown; may be empty. */
  speech: string;
};

/** One spoken section, pointing at the canvas page shown while it is spoken. */
export type DebriefSection = {
  /** The section's title; not blank. */
  title: string;
  /** What is said in the section; may be empty. */
  speech: string;
  /** Index into `contract.canvas.pages` (0-based). */
  pageIndex: number;
  /** When the section is spoken, e.g. `wait_for_prompt`. */
  delivery: SectionDelivery;
};

/** The `svc-debrief-v1` presentation contract. Every field is required by this writer. */
export type DebriefContract = {
  /** Always `svc-debrief-v1`. */
  version: typeof DEBRIEF_CONTRACT_VERSION;
  /** Headline; not blank. */
  title: string;
  /** Short summary; may be empty. */
  summary: string;
  /** What the assistant says and how it delivers the debrief. */
  svc: {
    /** What the assistant says first. */
    openingSpeech: string;
    /** Extra guidance for the assistant; may be empty. */
    instructions: string;
    /** How the debrief is delivered, e.g. `manual`. */
    delivery: DebriefDelivery;
  };
  /** The canvas the pages are shown on. */
  canvas: {
    /** Canvas headline; not blank. */
    title: string;
    /** How pages are shown, e.g. `replace`. */
    deliveryMode: CanvasDeliveryMode;
    /** The pages, at least one. */
    pages: DebriefPage[];
  };
  /** The spoken sections, each pointing at a page. */
  sections: DebriefSection[];
  /** Which of the debrief's actions are on. */
  actions: {
    /** Whether the speak-to-room action is on. */
    speakToRoom: boolean;
    /** Whether the open-canvas action is on. */
    openCanvas: boolean;
  };
};

/** Who sees the debrief. With `type: 'groups'`, `groupSlugs` lists the groups (at least one). */
export type DebriefAudience = {
  /** Kind of audience, e.g. `groups`. */
  type: 'groups' | (string & {});
  /** Slugs of the groups that see the debrief; at least one with `type: 'groups'`. */
  groupSlugs?: string[] | undefined;
};

/**
 * A debrief as you send it (`POST /debriefs`), keyed by `externalId`: keep the same
 * `externalId` to update the same debrief.
 */
export interface DebriefInput {
  /** Upsert key: not blank, at most 256 characters, not `.` or `..`. */
  externalId: string;
  /** Label of the workflow that produced the debrief. */
  source?: string | undefined;
  /** The record's title. */
  title?: string | undefined;
  /** The record's summary. */
  summary?: string | undefined;
  /** Record status, e.g. `ready`; not blank when given. */
  status?: DebriefStatus | undefined;
  /** Who sees the debrief. */
  audience?: DebriefAudience | undefined;
  /** The presentation itself; required and complete. */
  contract: DebriefContract;
}

const page = /* @__PURE__ */ writerObject({
  title: nonEmptyString,
  html: nonEmptyString,
  speech: text,
});

const section = /* @__PURE__ */ writerObject({
  title: nonEmptyString,
  speech: text,
  pageIndex: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.number('Expected a number'),
    /* @__PURE__ */ v.integer('Must be an integer'),
    /* @__PURE__ */ v.minValue(0, 'Must be 0 or more'),
  ),
  delivery: nonEmptyString,
});

type PathItem = v.ObjectPathItem | v.ArrayPathItem;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Strict writer schema of the `svc-debrief-v1` contract. Besides field types it checks that
 * there is at least one page and that every section's `pageIndex` points at a page.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * const result = v.safeParse(DebriefContractSchema, myContract);
 * ```
 */
export const DebriefContractSchema: v.GenericSchema<DebriefContract> = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ writerObject({
    version: /* @__PURE__ */ v.literal(DEBRIEF_CONTRACT_VERSION, 'Must be "svc-debrief-v1"'),
    title: nonEmptyString,
    summary: text,
    svc: /* @__PURE__ */ writerObject({
      openingSpeech: text,
      instructions: text,
      delivery: nonEmptyString,
    }),
    canvas: /* @__PURE__ */ writerObject({
      title: nonEmptyString,
      deliveryMode: nonEmptyString,
      pages: /* @__PURE__ */ v.pipe(
        /* @__PURE__ */ v.array(page, 'Expected an array of pages'),
        /* @__PURE__ */ v.minLength(1, 'A debrief needs at least one canvas page'),
      ),
    }),
    sections: /* @__PURE__ */ v.array(section, 'Expected an array of sections'),
    actions: /* @__PURE__ */ writerObject({
      speakToRoom: /* @__PURE__ */ v.boolean('Expected a boolean'),
      openCanvas: /* @__PURE__ */ v.boolean('Expected a boolean'),
    }),
  }),
  // Runs even when other fields failed, so cross-reference problems are reported together.
  /* @__PURE__ */ v.rawCheck(({ dataset, addIssue }) => {
    const contract = dataset.value;
    if (!isRecord(contract) || !isRecord(contract.canvas)) return;
    const { pages } = contract.canvas;
    const { sections } = contract;
    if (!Array.isArray(pages) || !Array.isArray(sections)) return;
    sections.forEach((item: unknown, index) => {
      if (!isRecord(item)) return;
      const { pageIndex } = item;
      if (typeof pageIndex !== 'number' || !Number.isInteger(pageIndex) || pageIndex < 0) return;
      if (pageIndex < pages.length) return;
      const path: [PathItem, ...PathItem[]] = [
        { type: 'object', origin: 'value', input: contract, key: 'sections', value: sections },
        { type: 'array', origin: 'value', input: sections, key: index, value: item },
        { type: 'object', origin: 'value', input: item, key: 'pageIndex', value: pageIndex },
      ];
      addIssue({
        message: `Points at page ${pageIndex} but the canvas has ${pages.length} page${pages.length === 1 ? '' : 's'} (valid: 0–${pages.length - 1})`,
        path,
      });
    });
  }),
);

const audience = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ writerObject({
    type: nonEmptyString,
    groupSlugs: /* @__PURE__ */ v.optional(stringList),
  }),
  /* @__PURE__ */ v.rawCheck(({ dataset, addIssue }) => {
    const value = dataset.value;
    if (!isRecord(value) || value.type !== 'groups') return;
    if (Array.isArray(value.groupSlugs) && value.groupSlugs.length > 0) return;
    addIssue({
      message: 'An audience of type "groups" needs at least one group slug',
      path: [
        {
          type: 'object',
          origin: 'value',
          input: value,
          key: 'groupSlugs',
          value: value.groupSlugs,
        },
      ],
    });
  }),
);

/**
 * Strict writer schema of a debrief: `externalId` (non-empty, at most 256 characters) and a
 * complete `contract` are required; unknown fields and `organizationId` are refused.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * const issues = v.safeParse(DebriefInputSchema, draft).issues;
 * ```
 */
export const DebriefInputSchema: v.GenericSchema<DebriefInput> = /* @__PURE__ */ writerObject({
  externalId: /* @__PURE__ */ v.pipe(
    nonEmptyString,
    /* @__PURE__ */ v.maxLength(256, 'Must be at most 256 characters'),
    // "." and ".." cannot be addressed in a URL path (GET /debriefs/:externalId).
    /* @__PURE__ */ v.check((value) => value !== '.' && value !== '..', 'Must not be "." or ".."'),
  ),
  source: /* @__PURE__ */ v.optional(text),
  title: /* @__PURE__ */ v.optional(text),
  summary: /* @__PURE__ */ v.optional(text),
  status: /* @__PURE__ */ v.optional(nonEmptyString),
  audience: /* @__PURE__ */ v.optional(audience),
  contract: DebriefContractSchema,
});

/** A debrief as the service returns it. Unknown fields (ids, timestamps, ...) are kept. */
export interface Debrief {
  /** The debrief's upsert key. */
  externalId: string;
  /** Label of the workflow that produced the debrief. */
  source?: string | undefined;
  /** The record's title. */
  title?: string | undefined;
  /** The record's summary. */
  summary?: string | undefined;
  /** Record status, e.g. `ready`. */
  status?: DebriefStatus | undefined;
  /** Who sees the debrief; unknown fields kept. */
  audience?:
    | ({
        /** Kind of audience, e.g. `groups`. */
        type: string;
        /** Slugs of the groups that see the debrief. */
        groupSlugs?: string[] | undefined;
      } & Record<string, unknown>)
    | undefined;
  /** The presentation, read loosely: only `version`, `title` and `summary` are type-checked. */
  contract?: (Partial<DebriefContract> & Record<string, unknown>) | undefined;
  [field: string]: unknown;
}

/**
 * Tolerant reader schema of a debrief: only `externalId` is required (the contract promises
 * it); known fields are type-checked when present, unknown fields are kept, and the contract
 * body is read loosely so newer contract fields never break this client.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * v.parse(DebriefSchema, { externalId: 'weekly-2025-w01', id: 'db_1' });
 * ```
 */
export const DebriefSchema: v.GenericSchema<Debrief> = /* @__PURE__ */ v.looseObject({
  externalId: /* @__PURE__ */ v.string(),
  source: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  title: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  summary: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  status: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  audience: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.looseObject({
      type: /* @__PURE__ */ v.string(),
      groupSlugs: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.array(/* @__PURE__ */ v.string())),
    }),
  ),
  contract: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.looseObject({
      version: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
      title: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
      summary: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
    }),
  ) as v.GenericSchema<(Partial<DebriefContract> & Record<string, unknown>) | undefined>,
});
