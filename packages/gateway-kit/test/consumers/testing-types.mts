// Typechecked (not run) against the packed package with skipLibCheck off and fast-check NOT
// installed: `@svc/gateway-kit/testing` is usable for its test client without the optional peer.
import { createGateway, defineAction } from '@svc/gateway-kit';
import {
  createTestClient,
  type FastCheckModule,
  invokeBody,
  type JobStoreConformanceOptions,
} from '@svc/gateway-kit/testing';
import * as v from 'valibot';

const ping = defineAction({
  id: 'ping',
  input: v.strictObject({}),
  run: () => ({ outputText: 'pong' }),
});
const gateway = createGateway({
  gateway: { id: 'g', name: 'G' },
  actions: [ping],
  auth: { tokens: ['token'] },
});
const client = createTestClient(gateway, { token: 'token' });
const answer: Promise<{ status: number }> = client.invoke(invokeBody('ping', {}));

export { answer };

// The conformance options name fast-check structurally, not through an import.
type Fc = JobStoreConformanceOptions['fc'];
const check: Fc extends FastCheckModule ? true : false = true;

export { check };
