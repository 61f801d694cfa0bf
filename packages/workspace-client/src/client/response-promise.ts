import type { WithResponse, WorkspacePromise } from './options.ts';

/**
 * Starts one call (`run`; a throw becomes a rejection): awaiting the result gives `data`; `withResponse()` gives `{ data, response }`
 * from the same request. A rejection is reported once, through whichever form is used.
 */
export function workspacePromise<T>(run: () => Promise<WithResponse<T>>): WorkspacePromise<T> {
  const call = run();
  const data = call.then((result) => result.data) as WorkspacePromise<T>;
  data.withResponse = () => {
    // The caller handles the rejection through `call`; the derived promise must not be
    // reported as unhandled too.
    data.catch(() => {});
    return call;
  };
  return data;
}
