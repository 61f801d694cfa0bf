import {
  type SharedAgent,
  type SharedAgentInput,
  SharedAgentInputSchema,
  SharedAgentSchema,
} from '../schemas/agent.ts';
import type { RequestOptions, WorkspacePromise } from './options.ts';
import { createSlugCollection } from './slug-collection.ts';
import type { Transport } from './transport.ts';

/** `client.agents`: shared agents of the workspace. */
export interface AgentsResource {
  /** `GET /agents`: every shared agent. */
  list(options?: RequestOptions): WorkspacePromise<SharedAgent[]>;
  /** `POST /agents`: create or replace the agent with this `slug`. */
  upsert(agent: SharedAgentInput, options?: RequestOptions): WorkspacePromise<SharedAgent>;
  /**
   * `DELETE /agents/:slug`. Resolves on any 2xx (the body is not read). Rejects with
   * `NotFoundError` when no such agent exists, except on a retry after an attempt that got no
   * response at all (network error, timeout): that attempt may have deleted it, so a 404
   * then counts as success. A 404 after a 5xx (or any other answer) still rejects.
   */
  delete(slug: string, options?: RequestOptions): WorkspacePromise<void>;
}

/** Builds `client.agents` on a transport. */
export function createAgentsResource(transport: Transport): AgentsResource {
  return createSlugCollection(transport, {
    plural: 'agents',
    singular: 'agent',
    schema: SharedAgentSchema,
    inputSchema: SharedAgentInputSchema,
  });
}
