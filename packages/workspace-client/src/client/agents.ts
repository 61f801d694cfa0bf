import {
  type SharedAgent,
  type SharedAgentInput,
  SharedAgentInputSchema,
  SharedAgentSchema,
} from '../schemas/agent.js';
import { parseOrThrow } from '../schemas/issues.js';
import type { RequestOptions, WorkspacePromise } from './options.js';
import { encodePathKey } from './path-key.js';
import { readList, readOne } from './read-body.js';
import { workspacePromise } from './response-promise.js';
import type { Transport } from './transport.js';

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
  const validate = transport.validateResponses;
  return {
    list(options) {
      return workspacePromise(async () => {
        const { body, response } = await transport.request('GET', '/agents', undefined, options);
        return { data: readList(body, 'agents', SharedAgentSchema, validate), response };
      });
    },
    upsert(agent, options) {
      return workspacePromise(async () => {
        const input = parseOrThrow(SharedAgentInputSchema, agent, 'request', 'shared agent');
        const { body, response } = await transport.request('POST', '/agents', input, options);
        const names = { singular: 'agent', identity: 'name', subject: 'POST /agents' };
        const data = readOne(body, names, SharedAgentSchema, validate) ?? { ...input };
        return { data, response };
      });
    },
    delete(slug, options) {
      return workspacePromise(async () => {
        const key = encodePathKey(slug, 'slug');
        const { response } = await transport.request(
          'DELETE',
          `/agents/${key}`,
          undefined,
          options,
        );
        return { data: undefined, response };
      });
    },
  };
}
