import type { ServerResponse } from 'node:http';

/**
 * A signal that aborts (with an `AbortError`) when the client disconnects before `res` finished.
 * Made on first use by the adapters' calls: only a running action needs to learn of a disconnect.
 *
 * @example
 * get signal() { return (this.#signal ??= disconnectSignal(this.#res)); }
 */
export function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const gone = (): void => {
    if (!res.writableFinished)
      controller.abort(new DOMException('The client disconnected.', 'AbortError'));
  };
  // Asked for after the client left (an action reading `signal` late): abort at once.
  if (res.closed) gone();
  else res.once('close', gone);
  return controller.signal;
}
