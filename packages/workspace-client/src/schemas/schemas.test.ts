import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { SharedAgentInputSchema, SharedAgentSchema } from './agent.ts';
import { SLUG_PATTERN } from './common.ts';
import { DebriefInputSchema, DebriefSchema } from './debrief.ts';
import { formatPath } from './issues.ts';
import { SharedSkillInputSchema } from './skill.ts';
import { slugify } from './slugify.ts';

const paths = (schema: v.GenericSchema, value: unknown) =>
  (v.safeParse(schema, value).issues ?? []).map((issue) => formatPath(issue.path));

describe('shared skill writer', () => {
  it('accepts the contract fields', () => {
    const skill = {
      name: 'Pricing',
      slug: 'pricing',
      instructions: 'Quote list prices.',
      description: 'How we quote',
      targets: ['realtime', 'brain'],
      status: 'active',
    };
    expect(v.parse(SharedSkillInputSchema, skill)).toEqual(skill);
  });

  it('requires name and instructions, non-blank', () => {
    expect(paths(SharedSkillInputSchema, { name: '  ' }).sort()).toEqual(['instructions', 'name']);
  });

  it.each(['', '  ', 'a/b', '/', '.', '..', 'x'.repeat(129), 7])('refuses slug %j', (slug) => {
    expect(paths(SharedSkillInputSchema, { name: 'n', instructions: 'i', slug })).toEqual(['slug']);
  });

  it.each(['sales.playbook', 'Sales Playbook', 'UPPER', '-leading', 'a--b', 'é', 'x'.repeat(128)])(
    'accepts slug %j (the contract fixes no format)',
    (slug) => {
      expect(paths(SharedSkillInputSchema, { name: 'n', instructions: 'i', slug })).toEqual([]);
    },
  );
});

describe('shared agent writer', () => {
  const agent = { name: 'Deal desk', slug: 'deal-desk' };

  it('requires name and slug', () => {
    expect(paths(SharedAgentInputSchema, {}).sort()).toEqual(['name', 'slug']);
  });

  it('only knows the two base personas', () => {
    expect(paths(SharedAgentInputSchema, { ...agent, basePersonaId: 'svc-other' })).toEqual([
      'basePersonaId',
    ]);
    expect(paths(SharedAgentInputSchema, { ...agent, basePersonaId: 'svc-classic' })).toEqual([]);
  });

  it('accepts allowedActionIds only with gatewayAccessMode "subset", and requires them then', () => {
    expect(paths(SharedAgentInputSchema, { ...agent, allowedActionIds: ['a'] })).toEqual([
      'allowedActionIds',
    ]);
    expect(
      paths(SharedAgentInputSchema, {
        ...agent,
        gatewayAccessMode: 'all',
        allowedActionIds: ['a'],
      }),
    ).toEqual(['allowedActionIds']);
    expect(paths(SharedAgentInputSchema, { ...agent, gatewayAccessMode: 'subset' })).toEqual([
      'allowedActionIds',
    ]);
    expect(
      paths(SharedAgentInputSchema, {
        ...agent,
        gatewayAccessMode: 'subset',
        allowedActionIds: ['a'],
      }),
    ).toEqual([]);
  });

  it('reads unknown persona values tolerantly', () => {
    expect(v.parse(SharedAgentSchema, { name: 'A', basePersonaId: 'svc-future', x: 1 })).toEqual({
      name: 'A',
      basePersonaId: 'svc-future',
      x: 1,
    });
  });
});

describe('debrief writer', () => {
  const contract = {
    version: 'svc-debrief-v1',
    title: 'T',
    summary: '',
    svc: { openingSpeech: 'Hi', instructions: '', delivery: 'manual' },
    canvas: {
      title: 'T',
      deliveryMode: 'replace',
      pages: [{ title: 'P', html: '<p/>', speech: '' }],
    },
    sections: [{ title: 'S', speech: '', pageIndex: 0, delivery: 'wait_for_prompt' }],
    actions: { speakToRoom: true, openCanvas: true },
  };

  it('accepts a complete debrief', () => {
    expect(paths(DebriefInputSchema, { externalId: 'x', contract })).toEqual([]);
  });

  it('reports a dangling pageIndex together with every other problem', () => {
    const broken = {
      externalId: '',
      contract: {
        ...contract,
        version: 'svc-debrief-v2',
        sections: [
          { title: 'S', speech: '', pageIndex: 0, delivery: 'wait_for_prompt' },
          { title: 'S', speech: '', pageIndex: 3, delivery: 'wait_for_prompt' },
          { title: 'S', speech: '', pageIndex: 1.5, delivery: 'wait_for_prompt' },
        ],
      },
    };
    expect(paths(DebriefInputSchema, broken).sort()).toEqual([
      'contract.sections[1].pageIndex',
      'contract.sections[2].pageIndex',
      'contract.version',
      'externalId',
    ]);
  });

  it('needs at least one page', () => {
    const empty = { ...contract, canvas: { ...contract.canvas, pages: [] }, sections: [] };
    expect(paths(DebriefInputSchema, { externalId: 'x', contract: empty })).toEqual([
      'contract.canvas.pages',
    ]);
  });

  it('needs group slugs for a groups audience', () => {
    expect(
      paths(DebriefInputSchema, { externalId: 'x', contract, audience: { type: 'groups' } }),
    ).toEqual(['audience.groupSlugs']);
  });

  it('reads debriefs tolerantly: only externalId is required', () => {
    expect(v.parse(DebriefSchema, { externalId: 'x', extra: { a: 1 } })).toEqual({
      externalId: 'x',
      extra: { a: 1 },
    });
    expect(paths(DebriefSchema, { title: 'no id' })).toEqual(['externalId']);
  });
});

describe('slugify', () => {
  it.each([
    ['Sales Playbook — Q3 (EMEA)', 'sales-playbook-q3-emea'],
    ['Crème brûlée', 'creme-brulee'],
    ['  --x--  ', 'x'],
    ['🙂', ''],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
    if (slug !== '') expect(slug).toMatch(SLUG_PATTERN);
  });
});
