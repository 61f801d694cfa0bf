import {
  type CanvasDeliveryMode,
  DEBRIEF_CONTRACT_VERSION,
  type DebriefAudience,
  type DebriefDelivery,
  type DebriefInput,
  DebriefInputSchema,
  type DebriefStatus,
  type SectionDelivery,
} from '../schemas/debrief.ts';
import { parseOrThrow } from '../schemas/issues.ts';

/** A canvas page to author. `speech` defaults to `''` (nothing said over the page). */
export interface DebriefPageDraft {
  /** The page's title; not blank. */
  title: string;
  /** The HTML shown on the canvas; not blank. */
  html: string;
  /** What is said while the page is shown. Defaults to `''`. */
  speech?: string | undefined;
}

/** A spoken section to author. `delivery` defaults to `'wait_for_prompt'`. */
export interface DebriefSectionDraft {
  /** The section's title; not blank. */
  title: string;
  /** What is said in the section. Defaults to `''`. */
  speech?: string | undefined;
  /** Index of the page shown while this section is spoken (0-based). */
  pageIndex: number;
  /** When the section is spoken. Defaults to `wait_for_prompt`. */
  delivery?: SectionDelivery | undefined;
}

/**
 * Everything needed to author a debrief; only `externalId`, `title` and `pages` are required.
 * See `defineDebrief` for the defaults.
 */
export interface DebriefDraft {
  /** Stable key: use the same value to update the same debrief (see `debriefExternalId`). */
  externalId: string;
  /** Headline of the debrief and its contract; not blank. */
  title: string;
  /** Short summary of the debrief and its contract. Defaults to `''`. */
  summary?: string | undefined;
  /** Label of the workflow that produced the debrief; omitted when absent. */
  source?: string | undefined;
  /** Record status. Defaults to `ready`. */
  status?: DebriefStatus | undefined;
  /** Who sees the debrief; omitted when absent. */
  audience?: DebriefAudience | undefined;
  /** What the assistant says first. Defaults to `summary`, or `title` when the summary is empty. */
  openingSpeech?: string | undefined;
  /** Extra guidance for the assistant. Defaults to `''`. */
  instructions?: string | undefined;
  /** How the debrief is delivered. Defaults to `manual`. */
  delivery?: DebriefDelivery | undefined;
  /** Canvas headline. Defaults to `title`. */
  canvasTitle?: string | undefined;
  /** How canvas pages are shown. Defaults to `replace`. */
  deliveryMode?: CanvasDeliveryMode | undefined;
  /** The canvas pages, at least one. */
  pages: DebriefPageDraft[];
  /** Defaults to one section per page, in page order. */
  sections?: DebriefSectionDraft[] | undefined;
  /** Which of the debrief's actions are on. Both default to `true`. */
  actions?:
    | {
        /** Whether the speak-to-room action is on. Defaults to `true`. */
        speakToRoom?: boolean | undefined;
        /** Whether the open-canvas action is on. Defaults to `true`. */
        openCanvas?: boolean | undefined;
      }
    | undefined;
}

/**
 * Turns a draft into a complete, valid `svc-debrief-v1` debrief, filling defaults:
 * `status: 'ready'`, `contract.version: 'svc-debrief-v1'`, `svc.delivery: 'manual'`,
 * `canvas.deliveryMode: 'replace'`, `openingSpeech` = summary (or title), canvas title =
 * title, one `wait_for_prompt` section per page when `sections` is omitted, and both
 * `actions` on. Throws one `WorkspaceValidationError` listing every problem with its path
 * (e.g. `contract.sections[2].pageIndex` pointing past the last page).
 *
 * @example
 * ```ts
 * const debrief = defineDebrief({
 *   externalId: 'pipeline-review:2025-w01',
 *   title: 'Pipeline review — week 1',
 *   summary: 'Three deals moved to negotiation.',
 *   pages: [
 *     { title: 'Overview', html: '<h1>Pipeline</h1><p>3 deals advanced</p>', speech: 'Here is the pipeline.' },
 *   ],
 * });
 * await client.debriefs.upsert(debrief);
 * ```
 */
export function defineDebrief(draft: DebriefDraft): DebriefInput {
  // Drafts from untyped callers may be malformed: build what we can and let the schema
  // report every problem with its path.
  const d = (draft ?? {}) as Partial<DebriefDraft>;
  const pages = d.pages;
  const sections: Partial<DebriefSectionDraft>[] | undefined =
    d.sections ??
    (Array.isArray(pages)
      ? pages.map((page, pageIndex) => ({ title: page?.title, speech: page?.speech, pageIndex }))
      : []);
  const summary = d.summary ?? '';
  const candidate = {
    externalId: d.externalId,
    ...(d.source === undefined ? {} : { source: d.source }),
    title: d.title,
    summary,
    status: d.status ?? 'ready',
    ...(d.audience === undefined ? {} : { audience: d.audience }),
    contract: {
      version: DEBRIEF_CONTRACT_VERSION,
      title: d.title,
      summary,
      svc: {
        openingSpeech: d.openingSpeech ?? (summary || d.title),
        instructions: d.instructions ?? '',
        delivery: d.delivery ?? 'manual',
      },
      canvas: {
        title: d.canvasTitle ?? d.title,
        deliveryMode: d.deliveryMode ?? 'replace',
        pages: Array.isArray(pages)
          ? pages.map((page) =>
              page !== null && typeof page === 'object'
                ? { ...page, speech: page.speech ?? '' }
                : page,
            )
          : pages,
      },
      sections: Array.isArray(sections)
        ? sections.map((section) =>
            section !== null && typeof section === 'object'
              ? {
                  ...section,
                  speech: section.speech ?? '',
                  delivery: section.delivery ?? 'wait_for_prompt',
                }
              : section,
          )
        : sections,
      actions: {
        speakToRoom: d.actions?.speakToRoom ?? true,
        openCanvas: d.actions?.openCanvas ?? true,
      },
    },
  };
  return parseOrThrow(DebriefInputSchema, candidate, 'request', 'debrief');
}
