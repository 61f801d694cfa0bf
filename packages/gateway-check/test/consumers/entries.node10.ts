// Typechecked (not run) against the packed package as an older CommonJS project does:
// `module: commonjs`, `moduleResolution: node` (node10), which ignores `exports`, so every subpath
// must reach its declarations through `typesVersions`. One symbol of each entry point is used.
import { checkGateway } from '@svc/gateway-check';
import { createGatewayClient } from '@svc/gateway-check/client';

export const used = [checkGateway, createGatewayClient];

// @ts-expect-error the declarations are real, not `any`: the options need a url and a token.
createGatewayClient({});
