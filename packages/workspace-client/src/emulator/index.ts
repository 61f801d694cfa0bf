export { LOCAL_ORIGINS, type OriginPolicy } from './cors.js';
export {
  createWorkspaceEmulator,
  type EmulatorFault,
  type RecordedRequest,
  type WorkspaceEmulator,
  type WorkspaceEmulatorOptions,
  type WorkspaceSnapshot,
} from './emulator.js';
export {
  escapeHtml,
  PREVIEW_HEADERS,
  type PreviewListItem,
  renderDebrief,
  renderDebriefList,
} from './preview.js';
