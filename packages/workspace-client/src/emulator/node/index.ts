/**
 * `@svc/workspace-client/emulator/node`: the workspace emulator served on `node:http`.
 *
 * @module emulator/node
 */
export {
  type RunningEmulator,
  type ServeEmulatorOptions,
  serveWorkspaceEmulator,
} from './serve.ts';
