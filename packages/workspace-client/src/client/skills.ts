import {
  type SharedSkill,
  type SharedSkillInput,
  SharedSkillInputSchema,
  SharedSkillSchema,
} from '../schemas/skill.ts';
import type { RequestOptions, WorkspacePromise } from './options.ts';
import { createSlugCollection } from './slug-collection.ts';
import type { Transport } from './transport.ts';

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
  return createSlugCollection(transport, {
    plural: 'skills',
    singular: 'skill',
    schema: SharedSkillSchema,
    inputSchema: SharedSkillInputSchema,
  });
}
