// (c) Our gateway, from the package's dist, served by its own node:http adapter.
import { createGateway, defineAction } from '../../dist/index.js';
import { serve } from '../../dist/node.js';
import { LookupInput, lookupAccount, TOKEN } from '../fixtures.mjs';
import { reportPort } from './announce.mjs';

export const gateway = createGateway({
  gateway: { id: 'bench', name: 'Benchmark gateway', url: 'http://127.0.0.1' },
  actions: [defineAction({ id: 'lookup-account', input: LookupInput, run: lookupAccount })],
  auth: { tokens: [TOKEN] },
  version: '2025-01-01',
});

// Imported by validation.mjs for the in-process path; only a child of run.mjs listens.
if (process.send) {
  const { server } = await serve(gateway, { port: 0 });
  reportPort(server.address().port);
}
