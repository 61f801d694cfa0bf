// Typechecked (not run) against the packed package as an older CommonJS project does:
// `module: commonjs`, `moduleResolution: node` (node10), which ignores `exports`, so every subpath
// (here and in @svc/gateway-kit, which the declarations import) must reach its declarations
// through `typesVersions`. One symbol of each entry point is used.
import { createMcpHandler } from '@svc/gateway-kit-mcp';
import { serveStdio } from '@svc/gateway-kit-mcp/stdio';

export const used = [createMcpHandler, serveStdio];

// @ts-expect-error the declarations are real, not `any`: the first argument is a gateway.
createMcpHandler(42);
