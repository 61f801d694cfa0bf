export {
  type RunningEmulator,
  type ServeEmulatorOptions,
  serveWorkspaceEmulator,
} from './serve.ts';
