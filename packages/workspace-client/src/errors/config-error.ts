import { WorkspaceError } from './workspace-error.ts';

/**
 * Thrown synchronously by `createWorkspaceClient` (and the package's other factories, whose name
 * starts the message) when its options are unusable: an option name it does not know (a typo
 * such as `maxRetry`), a missing or malformed `baseUrl`, a missing `apiKey` or one that is not
 * printable ASCII without spaces (e.g. a trailing newline), or a workspace key used in a browser
 * without `dangerouslyAllowBrowser: true`. A call rejects with it when an async `apiKey` returns
 * such a token (nothing is sent). The message never quotes the key.
 *
 * @example
 * ```ts
 * try {
 *   createWorkspaceClient({ baseUrl: 'not a url', apiKey: 'wk_test_example' });
 * } catch (error) {
 *   if (error instanceof WorkspaceConfigError) console.error(error.message);
 * }
 * ```
 */
export class WorkspaceConfigError extends WorkspaceError {
  override name = 'WorkspaceConfigError';
}
