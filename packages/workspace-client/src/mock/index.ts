import { type HttpHandler, http } from 'msw';
import { checkKeys, refuse } from '../client/validate-options.ts';
import { createWorkspaceEmulator, type WorkspaceEmulator } from '../emulator/emulator.ts';

export {
  createWorkspaceEmulator,
  type EmulatorFault,
  type RecordedRequest,
  type WorkspaceEmulator,
  type WorkspaceEmulatorOptions,
  type WorkspaceSnapshot,
} from '../emulator/emulator.ts';

/** Options of `workspaceHandlers`. */
export interface WorkspaceHandlersOptions {
  /**
   * Only intercept this origin (e.g. `'https://svc.example.com'`). Default: any origin. A
   * path in it (`'https://svc.example.com/tenant-a'`) becomes the default emulator's
   * `basePath`; an emulator you pass needs the same `basePath`.
   */
  baseUrl?: string | undefined;
  /**
   * Emulator to answer with. Default: a fresh one that accepts every `Origin` (the handlers run
   * inside your own test or page, so there is no foreign site to keep out).
   */
  emulator?: WorkspaceEmulator | undefined;
}

const FACTORY = 'workspaceHandlers';

/** Every option of `workspaceHandlers` (typed: a new option cannot be left out). */
const HANDLERS_KEYS = /* @__PURE__ */ Object.keys({
  baseUrl: 1,
  emulator: 1,
} satisfies { readonly [K in keyof WorkspaceHandlersOptions]-?: 1 });

/**
 * msw request handlers backed by a stateful workspace emulator, for your own tests.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createWorkspaceEmulator, workspaceHandlers } from '@svc/workspace-client/mock';
 *
 * const emulator = createWorkspaceEmulator();
 * const server = setupServer(...workspaceHandlers({ emulator, baseUrl: 'https://svc.example.com' }));
 * server.listen();
 * // code under test publishes; then assert:
 * emulator.workspace('wk_test_example').debriefs.length; // 1
 * ```
 */
export function workspaceHandlers(options: WorkspaceHandlersOptions = {}): HttpHandler[] {
  if (typeof options !== 'object' || options === null)
    refuse('options', options, 'expected { baseUrl?, emulator? }.', FACTORY);
  // A misspelt `baseUrl` (`baseURL`) would otherwise intercept every origin.
  checkKeys(options, HANDLERS_KEYS, FACTORY);
  const origin = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  const basePath = origin === '*' ? '' : new URL(origin).pathname;
  const emulator =
    options.emulator ?? createWorkspaceEmulator({ basePath, allowedOrigins: () => true });
  return [http.all(`${origin}/api/v1/org/*`, ({ request }) => emulator.handle(request))];
}
