import { describe, expect, it } from 'vitest';
import { WorkspaceValidationError } from '../errors/validation-error.ts';
import { debrief } from './builder.ts';
import { defineDebrief } from './define-debrief.ts';
import { debriefExternalId } from './external-id.ts';

describe('defineDebrief', () => {
  it('fills every default of a valid svc-debrief-v1 contract', () => {
    const result = defineDebrief({
      externalId: 'weekly:2025-w01',
      title: 'Week 1',
      summary: 'Good week.',
      pages: [
        { title: 'Revenue', html: '<h1>€1.2M</h1>', speech: 'Revenue grew.' },
        { title: 'Risks', html: '<ul><li>Churn</li></ul>' },
      ],
    });
    expect(result).toEqual({
      externalId: 'weekly:2025-w01',
      title: 'Week 1',
      summary: 'Good week.',
      status: 'ready',
      contract: {
        version: 'svc-debrief-v1',
        title: 'Week 1',
        summary: 'Good week.',
        svc: { openingSpeech: 'Good week.', instructions: '', delivery: 'manual' },
        canvas: {
          title: 'Week 1',
          deliveryMode: 'replace',
          pages: [
            { title: 'Revenue', html: '<h1>€1.2M</h1>', speech: 'Revenue grew.' },
            { title: 'Risks', html: '<ul><li>Churn</li></ul>', speech: '' },
          ],
        },
        sections: [
          { title: 'Revenue', speech: 'Revenue grew.', pageIndex: 0, delivery: 'wait_for_prompt' },
          { title: 'Risks', speech: '', pageIndex: 1, delivery: 'wait_for_prompt' },
        ],
        actions: { speakToRoom: true, openCanvas: true },
      },
    });
  });

  it('reports every problem at once, with contract paths', () => {
    let error: unknown;
    try {
      defineDebrief({
        externalId: '',
        title: 'T',
        pages: [{ title: 'P', html: '' }],
        sections: [
          { title: 'ok', pageIndex: 0 },
          { title: 'dangling', pageIndex: 4 },
        ],
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WorkspaceValidationError);
    const issues = (error as WorkspaceValidationError).issues;
    expect(issues.map((i) => i.path).sort()).toEqual([
      'contract.canvas.pages[0].html',
      'contract.sections[1].pageIndex',
      'externalId',
    ]);
    expect(issues.find((i) => i.path === 'contract.sections[1].pageIndex')?.message).toBe(
      'Points at page 4 but the canvas has 1 page (valid: 0–0)',
    );
  });

  it('survives malformed drafts from untyped callers and still lists the problems', () => {
    expect(() => defineDebrief({} as never)).toThrowError(WorkspaceValidationError);
    expect(() =>
      defineDebrief({ externalId: 'x', title: 'T', pages: 'nope' } as never),
    ).toThrowError(/contract.canvas.pages/);
  });
});

describe('debrief builder', () => {
  it('links each section to the page added before it', () => {
    const built = debrief({ externalId: 'x', title: 'Week 1', source: 'crm-sync' })
      .opening('Hello room')
      .instructions('Keep it short')
      .page({ title: 'One', html: '<p>1</p>' })
      .section({ title: 'Intro', speech: 'First' })
      .section({ title: 'More', speech: 'Still first' })
      .page({ title: 'Two', html: '<p>2</p>' })
      .section({ title: 'Next', speech: 'Second' })
      .forGroups(['sales'])
      .build();
    expect(built.source).toBe('crm-sync');
    expect(built.audience).toEqual({ type: 'groups', groupSlugs: ['sales'] });
    expect(built.contract.svc).toEqual({
      openingSpeech: 'Hello room',
      instructions: 'Keep it short',
      delivery: 'manual',
    });
    expect(built.contract.sections.map((s) => [s.title, s.pageIndex])).toEqual([
      ['Intro', 0],
      ['More', 0],
      ['Next', 1],
    ]);
  });

  it('reports a section added before any page at its pageIndex instead of binding it to page 0', () => {
    let error: unknown;
    try {
      debrief({ externalId: 'x', title: 'T' })
        .section({ title: 'Too early', speech: 'Nothing to show yet' })
        .page({ title: 'One', html: '<p>1</p>' })
        .section({ title: 'Fine', speech: 'Over page one' })
        .section({ title: 'Explicit', pageIndex: 0 })
        .build();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WorkspaceValidationError);
    expect((error as WorkspaceValidationError).issues).toEqual([
      {
        path: 'contract.sections[0].pageIndex',
        message: 'Section added before any page: add a .page() first or give a pageIndex',
      },
    ]);
  });

  it('keeps the other problems when a section comes before any page', () => {
    let error: unknown;
    try {
      debrief({ externalId: '', title: 'T' }).section({ title: 'Early' }).build();
    } catch (caught) {
      error = caught;
    }
    expect((error as WorkspaceValidationError).issues.map((i) => i.path).sort()).toEqual([
      'contract.canvas.pages',
      'contract.sections[0].pageIndex',
      'externalId',
    ]);
  });

  it('accepts a section given an explicit pageIndex before its page is added', () => {
    const built = debrief({ externalId: 'x', title: 'T' })
      .section({ title: 'Ahead', pageIndex: 0 })
      .page({ title: 'One', html: '<p>1</p>' })
      .build();
    expect(built.contract.sections.map((s) => s.pageIndex)).toEqual([0]);
  });

  it('refuses to build a debrief without pages', () => {
    expect(() => debrief({ externalId: 'x', title: 'T' }).build()).toThrowError(
      /contract.canvas.pages: A debrief needs at least one canvas page/,
    );
  });
});

describe('debriefExternalId', () => {
  it('builds the same id from the same identity', () => {
    expect(debriefExternalId('Pipeline Review', 'ACME Corp', '2025-W01')).toBe(
      'pipeline-review:acme-corp:2025-w01',
    );
    expect(debriefExternalId('weekly', 7)).toBe('weekly:7');
  });

  it.each([[[]], [['ok', ' ']], [['..']]])('refuses %j', (parts) => {
    expect(() => debriefExternalId(...(parts as string[]))).toThrowError(TypeError);
  });
});
