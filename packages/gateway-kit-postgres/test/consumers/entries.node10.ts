// Typechecked (not run) against the packed package as an older CommonJS project does:
// `module: commonjs`, `moduleResolution: node` (node10), which ignores `exports`: the
// declarations import `@svc/gateway-kit/store`, which must resolve through its `typesVersions`.
import type { JobStore } from '@svc/gateway-kit/store';
import { PostgresJobStore } from '@svc/gateway-kit-postgres';

export const open = (): JobStore => new PostgresJobStore();

// @ts-expect-error the declarations are real, not `any`: the options are an object.
new PostgresJobStore(42);
