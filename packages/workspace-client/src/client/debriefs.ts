import { WorkspaceValidationError } from '../errors/validation-error.js';
import {
  type Debrief,
  type DebriefInput,
  DebriefInputSchema,
  DebriefSchema,
} from '../schemas/debrief.js';
import { parseOrThrow } from '../schemas/issues.js';
import type { RequestOptions } from './options.js';
import { encodePathKey } from './path-key.js';
import { readList, readOne } from './read-body.js';
import type { Transport } from './transport.js';

/** `client.debriefs`: debriefs of the workspace. There is no delete route in v1. */
export interface DebriefsResource {
  /** `GET /debriefs`: every debrief. */
  list(options?: RequestOptions): Promise<Debrief[]>;
  /** `GET /debriefs/:externalId`. Rejects with `NotFoundError` when it does not exist. */
  get(externalId: string, options?: RequestOptions): Promise<Debrief>;
  /** `POST /debriefs`: create or update the debrief with this `externalId`; resolves to the saved debrief. */
  upsert(debrief: DebriefInput, options?: RequestOptions): Promise<Debrief>;
}

/** Builds `client.debriefs` on a transport. */
export function createDebriefsResource(transport: Transport): DebriefsResource {
  const validate = transport.validateResponses;
  return {
    async list(options) {
      const body = await transport.request('GET', '/debriefs', undefined, options);
      return readList(body, 'debriefs', DebriefSchema, validate);
    },
    async get(externalId, options) {
      const key = encodePathKey(externalId, 'externalId');
      const body = await transport.request('GET', `/debriefs/${key}`, undefined, options);
      const names = {
        singular: 'debrief',
        identity: 'externalId',
        subject: 'GET /debriefs/:externalId',
      };
      const debrief = readOne(body, names, DebriefSchema, validate);
      if (debrief === undefined) {
        throw new WorkspaceValidationError('response', names.subject, [
          { path: '', message: 'Expected a debrief but the body was empty' },
        ]);
      }
      return debrief;
    },
    async upsert(debrief, options) {
      const input = parseOrThrow(DebriefInputSchema, debrief, 'request', 'debrief');
      const body = await transport.request('POST', '/debriefs', input, options);
      const names = { singular: 'debrief', identity: 'externalId', subject: 'POST /debriefs' };
      return readOne(body, names, DebriefSchema, validate) ?? { ...input };
    },
  };
}
