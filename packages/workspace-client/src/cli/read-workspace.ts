import type * as v from 'valibot';
import { readList } from '../client/read-body.ts';
import type { Transport } from '../client/transport.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { SharedAgentSchema } from '../schemas/agent.ts';
import { DebriefSchema } from '../schemas/debrief.ts';
import { SharedSkillSchema } from '../schemas/skill.ts';
import type { RemoteState } from './plan.ts';

/** Envelope fields that, set, point at more of the list than the answer holds. */
const NEXT = [
  'next',
  'nextCursor',
  'next_cursor',
  'nextPage',
  'next_page',
  'nextPageToken',
  'next_page_token',
  'nextLink',
  'hasMore',
  'has_more',
];

/** Envelope fields that count the whole list. */
const TOTAL = ['total', 'totalCount', 'total_count'];

/**
 * Why a list answer holds only part of the list, or `undefined` when nothing says so: a `Link`
 * header with `rel="next"`, a continuation field that is set (`nextCursor: 'c2'`,
 * `hasMore: true`; `null`, `false` and `''` are not), or a total above the items it holds.
 * The contract shows no paging, so these are the common forms, not the service's own.
 *
 * @example
 * partialList({ skills: [], nextCursor: 'c2' }, {}, 0); // 'nextCursor is set'
 * partialList([], {}, 0); // undefined
 */
export function partialList(
  body: unknown,
  headers: Readonly<Record<string, string>>,
  count: number,
): string | undefined {
  if (/rel\s*=\s*"?next\b/i.test(headers.link ?? '')) return 'its Link header has rel="next"';
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const envelope = body as Record<string, unknown>;
  const next = NEXT.find((name) => {
    const value = envelope[name];
    return value !== undefined && value !== null && value !== false && value !== '';
  });
  if (next !== undefined) return `${next} is set`;
  const total = TOTAL.find((name) => typeof envelope[name] === 'number');
  if (total !== undefined && (envelope[total] as number) > count)
    return `${total} is ${String(envelope[total])} but it holds ${count}`;
  return undefined;
}

/**
 * Lists the workspace for a plan, refusing a list answer that holds only part of its list
 * (see `partialList`): a plan made from part of a list would create what exists and miss what
 * `--prune` should delete. Each list is one call, bounded by the client's `maxResponseBytes`.
 */
export async function readWorkspace(transport: Transport): Promise<RemoteState> {
  const read = async (plural: string, schema: v.GenericSchema<unknown, unknown>) => {
    const { body, response } = await transport.request('GET', `/${plural}`, undefined, undefined);
    const items = readList(body, plural, schema, transport.validateResponses);
    const why = partialList(body, response.headers, items.length);
    if (why !== undefined) {
      throw new WorkspaceError(
        `GET /${plural} answered part of the list (${why}); svc-workspace compares whole lists only, so nothing was planned`,
      );
    }
    return items as Record<string, unknown>[];
  };
  const [skills, agents, debriefs] = await Promise.all([
    read('skills', SharedSkillSchema),
    read('agents', SharedAgentSchema),
    read('debriefs', DebriefSchema),
  ]);
  return { skills, agents, debriefs };
}
