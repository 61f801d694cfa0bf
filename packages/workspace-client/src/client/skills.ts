import { parseOrThrow } from '../schemas/issues.js';
import {
  type SharedSkill,
  type SharedSkillInput,
  SharedSkillInputSchema,
  SharedSkillSchema,
} from '../schemas/skill.js';
import type { RequestOptions, WorkspacePromise } from './options.js';
import { encodePathKey } from './path-key.js';
import { readList, readOne } from './read-body.js';
import { workspacePromise } from './response-promise.js';
import type { Transport } from './transport.js';

/** `client.skills`: shared skills of the workspace. */
export interface SkillsResource {
  /** `GET /skills`: every shared skill. */
  list(options?: RequestOptions): WorkspacePromise<SharedSkill[]>;
  /** `POST /skills`: create or replace the skill with this `slug` (derived from `name` when omitted). */
  upsert(skill: SharedSkillInput, options?: RequestOptions): WorkspacePromise<SharedSkill>;
  /**
   * `DELETE /skills/:slug`. Resolves on any 2xx (the body is not read). Rejects with
   * `NotFoundError` when no such skill exists, except on a retry after an attempt that got no
   * response at all (network error, timeout): that attempt may have deleted it, so a 404
   * then counts as success. A 404 after a 5xx (or any other answer) still rejects.
   */
  delete(slug: string, options?: RequestOptions): WorkspacePromise<void>;
}

/** Builds `client.skills` on a transport. */
export function createSkillsResource(transport: Transport): SkillsResource {
  const validate = transport.validateResponses;
  return {
    list(options) {
      return workspacePromise(async () => {
        const { body, response } = await transport.request('GET', '/skills', undefined, options);
        return { data: readList(body, 'skills', SharedSkillSchema, validate), response };
      });
    },
    upsert(skill, options) {
      return workspacePromise(async () => {
        const input = parseOrThrow(SharedSkillInputSchema, skill, 'request', 'shared skill');
        const { body, response } = await transport.request('POST', '/skills', input, options);
        const names = { singular: 'skill', identity: 'name', subject: 'POST /skills' };
        // No body (e.g. 204): the service accepted what was sent.
        const data = readOne(body, names, SharedSkillSchema, validate) ?? { ...input };
        return { data, response };
      });
    },
    delete(slug, options) {
      return workspacePromise(async () => {
        const key = encodePathKey(slug, 'slug');
        const { response } = await transport.request(
          'DELETE',
          `/skills/${key}`,
          undefined,
          options,
        );
        return { data: undefined, response };
      });
    },
  };
}
