import { describe, expectTypeOf, it } from 'vitest';
import type { Debrief, DebriefInput } from '../schemas/debrief.ts';
import type { SharedSkill } from '../schemas/skill.ts';
import { createWorkspaceClient } from './create-workspace-client.ts';

const client = createWorkspaceClient({
  baseUrl: 'https://svc.example.com',
  apiKey: 'wk_test_example',
});

describe('client types', () => {
  it('types results', () => {
    expectTypeOf(client.skills.list()).resolves.toEqualTypeOf<SharedSkill[]>();
    expectTypeOf(client.debriefs.get('x')).resolves.toEqualTypeOf<Debrief>();
    expectTypeOf(client.agents.delete('x')).resolves.toBeVoid();
  });

  it('accepts an async apiKey and refuses unknown input fields at compile time', () => {
    createWorkspaceClient({ baseUrl: 'https://svc.example.com', apiKey: async () => 'token' });
    // @ts-expect-error organizationId is not part of a shared skill
    void client.skills.upsert({ name: 'n', instructions: 'i', organizationId: 'o' });
    // @ts-expect-error agents need a slug
    void client.agents.upsert({ name: 'n' });
    // @ts-expect-error a debrief needs its externalId
    expectTypeOf<{ contract: DebriefInput['contract'] }>().toMatchTypeOf<DebriefInput>();
  });
});
