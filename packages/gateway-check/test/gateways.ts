import type { FetchLike } from '../src/http/exchange.ts';
import type { Handler } from './fixtures/broken-gateways.ts';

/** A gateway's fetch handler as the checker's `fetch` option (requests never leave the process). */
export const inProcess =
  (handler: Handler): FetchLike =>
  (input, init) =>
    handler(new Request(input, init));

/** Where in-process gateways are reached. */
export const IN_PROCESS_URL = 'http://gateway.test';
