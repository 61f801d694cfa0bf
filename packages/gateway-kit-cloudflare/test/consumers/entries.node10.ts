// Typechecked (not run) against the packed package as an older CommonJS project does:
// `module: commonjs`, `moduleResolution: node` (node10), which ignores `exports`: the
// declarations import `@svc/gateway-kit/store`, which must resolve through its `typesVersions`.
import type { JobStore } from '@svc/gateway-kit/store';
import { createGatewayWorker, type DurableJobStore } from '@svc/gateway-kit-cloudflare';

export const asJobStore = (store: DurableJobStore): JobStore => store;
export const used = [createGatewayWorker];

// @ts-expect-error the declarations are real, not `any`: the options name a namespace.
createGatewayWorker({});
