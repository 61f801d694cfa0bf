// (c) Our gateway, from the package's dist, served by its own node:http adapter.
import { serve } from '../../dist/node.js';
import { reportPort } from './announce.mjs';
import { createBenchGateway } from './bench-gateway.mjs';

export const gateway = createBenchGateway();

// Imported by validation.mjs for the in-process path; only a child of run.mjs listens.
if (process.send) {
  const { server } = await serve(gateway, { port: 0 });
  reportPort(server.address().port);
}
