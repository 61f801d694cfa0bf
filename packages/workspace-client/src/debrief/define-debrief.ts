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
  title: string;
  html: string;
  speech?: string | undefined;
}

/** A spoken section to author. `delivery` defaults to `'wait_for_prompt'`. */
export interface DebriefSectionDraft {
  title: string;
  speech?: string | undefined;
  /** Index of the page shown while this section is spoken (0-based). */
  pageIndex: number;
  delivery?: SectionDelivery | undefined;
}

/**
 * Everything needed to author a debrief; only `externalId`, `title` and `pages` are required.
 * See `defineDebrief` for the defaults.
 */
export interface DebriefDraft {
  /** Stable key: use the same value to update the same debrief (see `debriefExternalId`). */
  externalId: string;
  title: string;
  summary?: string | undefined;
  source?: string | undefined;
  status?: DebriefStatus | undefined;
  audience?: DebriefAudience | undefined;
  openingSpeech?: string | undefined;
  instructions?: string | undefined;
  delivery?: DebriefDelivery | undefined;
  canvasTitle?: string | undefined;
  deliveryMode?: CanvasDeliveryMode | undefined;
  pages: DebriefPageDraft[];
  /** Defaults to one section per page, in page order. */
  sections?: DebriefSectionDraft[] | undefined;
  actions?: { speakToRoom?: boolean | undefined; openCanvas?: boolean | undefined } | undefined;
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
