import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createWorkspaceClient } from '../client/create-workspace-client.ts';
import { type SharedAgentInput, SharedAgentInputSchema } from '../schemas/agent.ts';
import { type DebriefInput, DebriefInputSchema } from '../schemas/debrief.ts';
import { type SharedSkillInput, SharedSkillInputSchema } from '../schemas/skill.ts';
import { createWorkspaceEmulator } from './emulator.ts';

const slug = fc.stringMatching(/^[a-z0-9]{1,8}(?:[-_][a-z0-9]{1,8}){0,3}$/);
const words = fc.string({ minLength: 0, maxLength: 40, unit: 'grapheme' });
const nonBlank = words.filter((s) => s.trim() !== '');
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const compact = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;

const skillArb: fc.Arbitrary<SharedSkillInput> = fc
  .record({
    name: nonBlank,
    slug,
    instructions: nonBlank,
    description: opt(words),
    targets: opt(fc.array(fc.constantFrom('realtime', 'brain'), { maxLength: 2 })),
    status: opt(fc.constant('active')),
  })
  .map(compact);

const agentArb: fc.Arbitrary<SharedAgentInput> = fc
  .record({
    name: nonBlank,
    slug,
    description: opt(words),
    basePersonaId: opt(fc.constantFrom('svc-nova' as const, 'svc-classic' as const)),
    status: opt(fc.constant('active')),
    access: fc.option(fc.array(nonBlank, { maxLength: 3 }), { nil: undefined }),
    selectedSkillSlugs: opt(fc.array(slug, { maxLength: 3 })),
  })
  .map(({ access, ...agent }) =>
    compact(
      access === undefined
        ? { ...agent, gatewayAccessMode: 'all' as const }
        : { ...agent, gatewayAccessMode: 'subset' as const, allowedActionIds: access },
    ),
  );

const debriefArb: fc.Arbitrary<DebriefInput> = fc
  .record({
    externalId: nonBlank.filter((s) => s !== '.' && s !== '..'),
    title: opt(words),
    source: opt(words),
    pages: fc.array(fc.record({ title: nonBlank, html: nonBlank, speech: words }), {
      minLength: 1,
      maxLength: 4,
    }),
    sectionSeeds: fc.array(fc.record({ title: nonBlank, speech: words, at: fc.nat() }), {
      maxLength: 4,
    }),
    groups: opt(fc.array(slug, { minLength: 1, maxLength: 2 })),
    flags: fc.record({ speakToRoom: fc.boolean(), openCanvas: fc.boolean() }),
  })
  .map(({ externalId, title, source, pages, sectionSeeds, groups, flags }) =>
    compact({
      externalId,
      title,
      source,
      status: 'ready',
      audience: groups === undefined ? undefined : { type: 'groups', groupSlugs: groups },
      contract: {
        version: 'svc-debrief-v1' as const,
        title: 'Debrief',
        summary: '',
        svc: { openingSpeech: 'Hello', instructions: '', delivery: 'manual' },
        canvas: { title: 'Canvas', deliveryMode: 'replace', pages },
        sections: sectionSeeds.map(({ title: t, speech, at }) => ({
          title: t,
          speech,
          pageIndex: at % pages.length,
          delivery: 'wait_for_prompt',
        })),
        actions: flags,
      },
    }),
  );

const newClient = () => {
  const emulator = createWorkspaceEmulator();
  return createWorkspaceClient({
    baseUrl: 'http://emulator.local',
    apiKey: 'wk_test_example',
    retry: 0,
    fetch: (input, init) => emulator.handle(new Request(input, init)),
  });
};

describe('round-trips through the emulator', () => {
  it('generators only produce schema-valid input', () => {
    fc.assert(fc.property(skillArb, (s) => v.is(SharedSkillInputSchema, s)));
    fc.assert(fc.property(agentArb, (a) => v.is(SharedAgentInputSchema, a)));
    fc.assert(fc.property(debriefArb, (d) => v.is(DebriefInputSchema, d)));
  });

  it('every valid skill comes back from list after upsert', async () => {
    await fc.assert(
      fc.asyncProperty(skillArb, async (skill) => {
        const client = newClient();
        const saved = await client.skills.upsert(skill);
        const listed = (await client.skills.list()).find((s) => s.slug === skill.slug);
        expect(saved).toMatchObject(skill);
        expect(listed).toEqual(saved);
      }),
      { numRuns: 60 },
    );
  });

  it('every valid agent comes back from list after upsert', async () => {
    await fc.assert(
      fc.asyncProperty(agentArb, async (agent) => {
        const client = newClient();
        const saved = await client.agents.upsert(agent);
        expect(saved).toMatchObject(agent);
        expect(await client.agents.list()).toEqual([saved]);
      }),
      { numRuns: 60 },
    );
  });

  it('every valid debrief comes back from get after upsert', async () => {
    await fc.assert(
      fc.asyncProperty(debriefArb, async (debrief) => {
        const client = newClient();
        const saved = await client.debriefs.upsert(debrief);
        expect(saved).toMatchObject(debrief);
        expect(await client.debriefs.get(debrief.externalId)).toEqual(saved);
      }),
      { numRuns: 60 },
    );
  });
});
