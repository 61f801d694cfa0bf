export { LOCAL_ORIGINS, type OriginPolicy } from './cors.ts';
export {
  createWorkspaceEmulator,
  type EmulatorFault,
  type RecordedRequest,
  type WorkspaceEmulator,
  type WorkspaceEmulatorOptions,
  type WorkspaceSnapshot,
} from './emulator.ts';
export {
  escapeHtml,
  PREVIEW_HEADERS,
  type PreviewListItem,
  renderDebrief,
  renderDebriefList,
} from './preview.ts';
