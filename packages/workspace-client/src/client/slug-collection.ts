import type * as v from 'valibot';
import { parseOrThrow } from '../schemas/issues.ts';
import type { RequestOptions, WorkspacePromise } from './options.ts';
import { encodePathKey } from './path-key.ts';
import { readList, readOne } from './read-body.ts';
import { workspacePromise } from './response-promise.ts';
import type { Transport } from './transport.ts';

/** A workspace collection keyed by `slug` (shared skills, shared agents): list, upsert, delete. */
export interface SlugCollection<TItem, TInput> {
  list(options?: RequestOptions): WorkspacePromise<TItem[]>;
  upsert(item: TInput, options?: RequestOptions): WorkspacePromise<TItem>;
  delete(slug: string, options?: RequestOptions): WorkspacePromise<void>;
}

/** Names and schemas of one slug-keyed collection. */
export interface SlugCollectionSpec<TItem, TInput> {
  /** `skills`, `agents`: the route segment and the list's property. */
  readonly plural: string;
  /** `skill`, `agent`: for messages. */
  readonly singular: string;
  readonly schema: v.GenericSchema<unknown, TItem>;
  readonly inputSchema: v.GenericSchema<unknown, TInput>;
}

/**
 * The calls of a slug-keyed collection on a transport: `GET /<plural>`, `POST /<plural>` (upsert,
 * the request checked first) and `DELETE /<plural>/:slug`.
 */
export function createSlugCollection<TItem, TInput extends object>(
  transport: Transport,
  spec: SlugCollectionSpec<TItem, TInput>,
): SlugCollection<TItem, TInput> {
  const validate = transport.validateResponses;
  const path = `/${spec.plural}`;
  const names = { singular: spec.singular, identity: 'name', subject: `POST ${path}` };
  return {
    list(options) {
      return workspacePromise(async () => {
        const { body, response } = await transport.request('GET', path, undefined, options);
        return { data: readList(body, spec.plural, spec.schema, validate), response };
      });
    },
    upsert(item, options) {
      return workspacePromise(async () => {
        const input = parseOrThrow(spec.inputSchema, item, 'request', `shared ${spec.singular}`);
        const { body, response } = await transport.request('POST', path, input, options);
        // No body (e.g. 204): the service accepted what was sent.
        const data =
          readOne(body, names, spec.schema, validate) ?? ({ ...input } as unknown as TItem);
        return { data, response };
      });
    },
    delete(slug, options) {
      return workspacePromise(async () => {
        const key = encodePathKey(slug, 'slug');
        const { response } = await transport.request(
          'DELETE',
          `${path}/${key}`,
          undefined,
          options,
        );
        return { data: undefined, response };
      });
    },
  };
}
