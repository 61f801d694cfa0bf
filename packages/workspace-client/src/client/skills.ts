import { parseOrThrow } from '../schemas/issues.js';
import {
  type SharedSkill,
  type SharedSkillInput,
  SharedSkillInputSchema,
  SharedSkillSchema,
} from '../schemas/skill.js';
import type { RequestOptions } from './options.js';
import { encodePathKey } from './path-key.js';
import { readList, readOne } from './read-body.js';
import type { Transport } from './transport.js';

/** `client.skills`: shared skills of the workspace. */
export interface SkillsResource {
  /** `GET /skills`: every shared skill. */
  list(options?: RequestOptions): Promise<SharedSkill[]>;
  /** `POST /skills`: create or replace the skill with this `slug` (derived from `name` when omitted). */
  upsert(skill: SharedSkillInput, options?: RequestOptions): Promise<SharedSkill>;
  /**
   * `DELETE /skills/:slug`. Resolves on any 2xx (the body is not read). Rejects with
   * `NotFoundError` when no such skill exists, except on a retry after an attempt that got no
   * response at all (network error, timeout): that attempt may have deleted it, so a 404
   * then counts as success. A 404 after a 5xx (or any other answer) still rejects.
   */
  delete(slug: string, options?: RequestOptions): Promise<void>;
}

/** Builds `client.skills` on a transport. */
export function createSkillsResource(transport: Transport): SkillsResource {
  const validate = transport.validateResponses;
  return {
    async list(options) {
      const body = await transport.request('GET', '/skills', undefined, options);
      return readList(body, 'skills', SharedSkillSchema, validate);
    },
    async upsert(skill, options) {
      const input = parseOrThrow(SharedSkillInputSchema, skill, 'request', 'shared skill');
      const body = await transport.request('POST', '/skills', input, options);
      const names = { singular: 'skill', identity: 'name', subject: 'POST /skills' };
      // No body (e.g. 204): the service accepted what was sent.
      return readOne(body, names, SharedSkillSchema, validate) ?? { ...input };
    },
    async delete(slug, options) {
      const key = encodePathKey(slug, 'slug');
      await transport.request('DELETE', `/skills/${key}`, undefined, options);
    },
  };
}
