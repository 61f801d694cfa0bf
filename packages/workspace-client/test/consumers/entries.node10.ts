// Typechecked (not run) against the packed package as an older CommonJS project does:
// `module: commonjs`, `moduleResolution: node` (node10), which ignores `exports`, so every subpath
// must reach its declarations through `typesVersions`. One symbol of each entry point is used;
// `/mock` is in mock.node10.ts (msw's own declarations need skipLibCheck under node10).
import { createWorkspaceClient } from '@svc/workspace-client';
import { createWorkspaceEmulator } from '@svc/workspace-client/emulator';
import { serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';

export const used: unknown[] = [
  createWorkspaceClient,
  createWorkspaceEmulator,
  serveWorkspaceEmulator,
];

// @ts-expect-error the declarations are real, not `any`: the options need a baseUrl.
createWorkspaceClient({});
