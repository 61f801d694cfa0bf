// Typechecked (not run) against the packed package under `moduleResolution: node` (node10), with
// skipLibCheck on: msw's own declarations import `@mswjs/interceptors/WebSocket`, which node10
// cannot resolve (a plain `import 'msw'` fails the same way with skipLibCheck off).
import { createWorkspaceEmulator, workspaceHandlers } from '@svc/workspace-client/mock';

export const handlers: unknown[] = workspaceHandlers({ emulator: createWorkspaceEmulator() });

// @ts-expect-error the declarations are real, not `any` (skipLibCheck hides a failed import).
workspaceHandlers({ emulator: 42 });
