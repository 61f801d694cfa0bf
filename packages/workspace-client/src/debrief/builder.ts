import { type ValidationIssue, WorkspaceValidationError } from '../errors/validation-error.ts';
import type { DebriefAudience, DebriefInput } from '../schemas/debrief.ts';
import {
  type DebriefDraft,
  type DebriefPageDraft,
  type DebriefSectionDraft,
  defineDebrief,
} from './define-debrief.ts';

/** Fields of `debrief(...)`: the draft without pages and sections, which are added by calls. */
export type DebriefBuilderInit = Omit<DebriefDraft, 'pages' | 'sections'>;

/** A section added with the builder; `pageIndex` defaults to the page added last. */
export type BuilderSectionDraft = Omit<DebriefSectionDraft, 'pageIndex'> & {
  /** Index of the page shown while this section is spoken (0-based); defaults to the last page added. */
  pageIndex?: number | undefined;
};

/** Fluent debrief builder returned by `debrief(...)`. Every method returns the builder. */
export interface DebriefBuilder {
  /** What the assistant says first. Defaults to the summary, or the title. */
  opening(speech: string): DebriefBuilder;
  /** Extra instructions for the assistant presenting the debrief. */
  instructions(text: string): DebriefBuilder;
  /** Appends a canvas page. */
  page(page: DebriefPageDraft): DebriefBuilder;
  /**
   * Appends a spoken section shown over `pageIndex` (default: the last page added). Once
   * any section is added, no default one-section-per-page list is generated. A section
   * added before any page without a `pageIndex` is reported by `build()`.
   */
  section(section: BuilderSectionDraft): DebriefBuilder;
  /** Restricts the audience to these groups. */
  forGroups(groupSlugs: string[]): DebriefBuilder;
  /** Validates and returns the debrief (see `defineDebrief`); throws listing every problem. */
  build(): DebriefInput;
}

/**
 * Starts a fluent debrief. `build()` applies the same defaults and checks as `defineDebrief`.
 *
 * @example
 * ```ts
 * const weekly = debrief({ externalId: debriefExternalId('weekly', '2025-w01'), title: 'Week 1' })
 *   .opening('Good morning — here is last week in two minutes.')
 *   .page({ title: 'Revenue', html: '<h1>€1.2M</h1>' })
 *   .section({ title: 'Revenue', speech: 'Revenue grew eight percent.' })
 *   .build();
 * ```
 */
export function debrief(init: DebriefBuilderInit): DebriefBuilder {
  const draft: DebriefDraft = { ...init, pages: [] };
  const pages: DebriefPageDraft[] = [];
  const sections: DebriefSectionDraft[] = [];
  // Sections added before any page without a pageIndex: they have no page to bind to.
  const unbound: number[] = [];
  const builder: DebriefBuilder = {
    opening(speech) {
      draft.openingSpeech = speech;
      return builder;
    },
    instructions(text) {
      draft.instructions = text;
      return builder;
    },
    page(page) {
      pages.push(page);
      return builder;
    },
    section(section) {
      if (section.pageIndex === undefined && pages.length === 0) unbound.push(sections.length);
      sections.push({ ...section, pageIndex: section.pageIndex ?? Math.max(0, pages.length - 1) });
      return builder;
    },
    forGroups(groupSlugs) {
      const audience: DebriefAudience = { type: 'groups', groupSlugs: [...groupSlugs] };
      draft.audience = audience;
      return builder;
    },
    build() {
      const complete: DebriefDraft = {
        ...draft,
        pages: [...pages],
        ...(sections.length > 0 ? { sections: [...sections] } : {}),
      };
      if (unbound.length === 0) return defineDebrief(complete);
      let issues: readonly ValidationIssue[] = [];
      try {
        defineDebrief(complete);
      } catch (error) {
        if (!(error instanceof WorkspaceValidationError)) throw error;
        issues = error.issues;
      }
      const paths = unbound.map((index) => `contract.sections[${index}].pageIndex`);
      throw new WorkspaceValidationError('request', 'debrief', [
        ...issues.filter((issue) => !paths.includes(issue.path)),
        ...paths.map((path) => ({
          path,
          message: 'Section added before any page: add a .page() first or give a pageIndex',
        })),
      ]);
    },
  };
  return builder;
}
