import type { WorkspaceClient } from '../client/create-workspace-client.ts';
import type { WorkspacePromise } from '../client/options.ts';
import type { SharedAgentInput } from '../schemas/agent.ts';
import type { DebriefInput } from '../schemas/debrief.ts';
import type { SharedSkillInput } from '../schemas/skill.ts';
import type { Change } from './plan.ts';

/** One change that was carried out, with the service's request id. */
export interface Applied {
  readonly change: Change;
  readonly status: number;
  readonly requestId: string | undefined;
}

/**
 * Carries out a plan with the client (its retries and timeouts apply), in an order that keeps
 * references valid: skills, then agents (they name skills), then debriefs are upserted; agents
 * are deleted before skills. Stops at the first failure and reports it as `failed`, with
 * `applied` listing what was done before it.
 */
export async function applyPlan(
  client: WorkspaceClient,
  changes: readonly Change[],
  onApplied: (applied: Applied) => void = () => {},
): Promise<{ applied: Applied[]; failed?: { change: Change; error: unknown } }> {
  const order = (change: Change): number => {
    if (change.action === 'delete') return change.kind === 'agents' ? 3 : 4;
    return { skills: 0, agents: 1, debriefs: 2 }[change.kind];
  };
  const pending = changes
    .filter((change) => change.action !== 'unchanged')
    .sort((a, b) => order(a) - order(b));
  const applied: Applied[] = [];
  for (const change of pending) {
    let call: WorkspacePromise<unknown>;
    if (change.action === 'delete') {
      call = client[change.kind === 'agents' ? 'agents' : 'skills'].delete(change.key);
    } else if (change.kind === 'skills') {
      call = client.skills.upsert(change.input as SharedSkillInput);
    } else if (change.kind === 'agents') {
      call = client.agents.upsert(change.input as SharedAgentInput);
    } else {
      call = client.debriefs.upsert(change.input as DebriefInput);
    }
    try {
      const { response } = await call.withResponse();
      const done = { change, status: response.status, requestId: response.requestId };
      applied.push(done);
      onApplied(done);
    } catch (error) {
      return { applied, failed: { change, error } };
    }
  }
  return { applied };
}
