import { WorkspaceValidationError } from '../errors/validation-error.ts';
import {
  type Debrief,
  type DebriefInput,
  DebriefInputSchema,
  DebriefSchema,
} from '../schemas/debrief.ts';
import { parseOrThrow } from '../schemas/issues.ts';
import type { RequestOptions, WorkspacePromise } from './options.ts';
import { encodePathKey } from './path-key.ts';
import { readList, readOne } from './read-body.ts';
import { workspacePromise } from './response-promise.ts';
import type { Transport } from './transport.ts';

/** `client.debriefs`: debriefs of the workspace. There is no delete route in v1. */
export interface DebriefsResource {
  /** `GET /debriefs`: every debrief. */
  list(options?: RequestOptions): WorkspacePromise<Debrief[]>;
  /** `GET /debriefs/:externalId`. Rejects with `NotFoundError` when it does not exist. */
  get(externalId: string, options?: RequestOptions): WorkspacePromise<Debrief>;
  /** `POST /debriefs`: create or update the debrief with this `externalId`; resolves to the saved debrief. */
  upsert(debrief: DebriefInput, options?: RequestOptions): WorkspacePromise<Debrief>;
}

/** Builds `client.debriefs` on a transport. */
export function createDebriefsResource(transport: Transport): DebriefsResource {
  const validate = transport.validateResponses;
  return {
    list(options) {
      return workspacePromise(async () => {
        const { body, response } = await transport.request('GET', '/debriefs', undefined, options);
        return { data: readList(body, 'debriefs', DebriefSchema, validate), response };
      });
    },
    get(externalId, options) {
      return workspacePromise(async () => {
        const key = encodePathKey(externalId, 'externalId');
        const { body, response } = await transport.request(
          'GET',
          `/debriefs/${key}`,
          undefined,
          options,
        );
        const names = {
          singular: 'debrief',
          identity: 'externalId',
          subject: 'GET /debriefs/:externalId',
        };
        const data = readOne(body, names, DebriefSchema, validate);
        if (data === undefined) {
          throw new WorkspaceValidationError('response', names.subject, [
            { path: '', message: 'Expected a debrief but the body was empty' },
          ]);
        }
        return { data, response };
      });
    },
    upsert(debrief, options) {
      return workspacePromise(async () => {
        const input = parseOrThrow(DebriefInputSchema, debrief, 'request', 'debrief');
        const { body, response } = await transport.request('POST', '/debriefs', input, options);
        const names = { singular: 'debrief', identity: 'externalId', subject: 'POST /debriefs' };
        return { data: readOne(body, names, DebriefSchema, validate) ?? { ...input }, response };
      });
    },
  };
}
