import type { InvokeRequest } from '../contract/invoke-request.ts';

/** Overrides for {@link invokeBody}: top-level fields, and nested objects merged one level deep. */
export type InvokeBodyOverrides = Partial<
  Omit<InvokeRequest, 'meeting' | 'session' | 'action' | 'callbacks'>
> & {
  /** Merged over `{ id: 'meeting_test', roomName: 'Test room' }`. */
  readonly meeting?: Partial<InvokeRequest['meeting']>;
  /** Merged over `{ id: 'session_test', mode: 'active' }`. */
  readonly session?: Partial<InvokeRequest['session']>;
  /** Merged over `{ id: actionId, input }`. */
  readonly action?: Partial<InvokeRequest['action']>;
  /** The request's callbacks; defaults to `{}`. */
  readonly callbacks?: InvokeRequest['callbacks'];
};

let sequence = 0;

/**
 * Builds a valid invoke request body, with a fresh `invocationId`, for the action `actionId`.
 *
 * @example
 * const body = invokeBody('lookup-account', { accountId: 'acc_42' });
 * const withDeadline = invokeBody('lookup-account', { accountId: 'acc_42' }, { deadlineAt: '2030-01-01T00:00:00Z' });
 */
export function invokeBody(
  actionId: string,
  input: Record<string, unknown> = {},
  overrides: InvokeBodyOverrides = {},
): InvokeRequest {
  sequence += 1;
  const { meeting, session, action, callbacks, ...top } = overrides;
  return {
    invocationId: `inv_test_${sequence}`,
    context: {},
    ...top,
    meeting: { id: 'meeting_test', roomName: 'Test room', ...meeting },
    session: { id: 'session_test', mode: 'active', ...session },
    action: { id: actionId, input, ...action },
    callbacks: { ...callbacks },
  } as InvokeRequest;
}
