import { type AgentsResource, createAgentsResource } from './agents.ts';
import { createDebriefsResource, type DebriefsResource } from './debriefs.ts';
import type { WorkspaceClientOptions } from './options.ts';
import { createSkillsResource, type SkillsResource } from './skills.ts';
import { createTransport } from './transport.ts';

/** The workspace API client: `skills`, `agents` and `debriefs` under `{baseUrl}/api/v1/org`. */
export interface WorkspaceClient {
  /** Shared skills: list, upsert by `slug`, delete. */
  readonly skills: SkillsResource;
  /** Shared agents: list, upsert by `slug`, delete. */
  readonly agents: AgentsResource;
  /** Debriefs: list, get and upsert by `externalId` (no delete in v1). */
  readonly debriefs: DebriefsResource;
}

/**
 * Creates a client for the workspace API. Options are checked at once (throws
 * `WorkspaceConfigError`); the key is kept private and never appears in errors.
 *
 * @example
 * ```ts
 * import { createWorkspaceClient } from '@svc/workspace-client';
 *
 * const client = createWorkspaceClient({
 *   baseUrl: 'https://svc.example.com',
 *   apiKey: process.env.SVC_WORKSPACE_KEY!,
 * });
 * await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices only.' });
 * ```
 */
export function createWorkspaceClient(options: WorkspaceClientOptions): WorkspaceClient {
  const transport = createTransport(options, 'createWorkspaceClient');
  return {
    skills: createSkillsResource(transport),
    agents: createAgentsResource(transport),
    debriefs: createDebriefsResource(transport),
  };
}

/**
 * Creates only the debriefs part of the client (`list`, `get`, `upsert`). Same options and
 * behaviour as `createWorkspaceClient`, for code that only publishes debriefs and wants
 * the smallest bundle.
 *
 * @example
 * ```ts
 * import { createDebriefsClient, defineDebrief } from '@svc/workspace-client';
 *
 * const debriefs = createDebriefsClient({ baseUrl, apiKey: getShortLivedToken });
 * await debriefs.upsert(defineDebrief({ externalId: 'weekly-2025-w01', title: 'Week 1', pages }));
 * ```
 */
export function createDebriefsClient(options: WorkspaceClientOptions): DebriefsResource {
  return createDebriefsResource(createTransport(options, 'createDebriefsClient'));
}
