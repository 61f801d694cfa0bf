// Typechecked (not run) against the packed package as an older CommonJS project does:
// `module: commonjs`, `moduleResolution: node` (node10), which ignores `exports`, so every subpath
// must reach its declarations through `typesVersions`. One symbol of each entry point is used.
import { defineAction } from '@svc/gateway-kit';
import { CallbackDispatcher } from '@svc/gateway-kit/callbacks';
import { InvokeRequestSchema } from '@svc/gateway-kit/contract';
import { fastifyGateway } from '@svc/gateway-kit/fastify';
import { toNodeHandler } from '@svc/gateway-kit/node';
import type { GatewayHooks } from '@svc/gateway-kit/observe';
import { type JobStore, MemoryJobStore } from '@svc/gateway-kit/store';
import { invokeBody } from '@svc/gateway-kit/testing';

const store: JobStore = new MemoryJobStore();
const hooks: GatewayHooks = { onInvokeReceived: () => undefined };

export const used = [
  defineAction,
  CallbackDispatcher,
  InvokeRequestSchema,
  fastifyGateway,
  toNodeHandler,
  store,
  hooks,
  invokeBody('ping'),
];

// @ts-expect-error the declarations are real, not `any`: an action id is a string.
invokeBody(42);
