import { randomId } from '../http/random-id.ts';

/** A valid invoke request for `actionId` with `input`; each call has a fresh invocation id. */
export function invokeBody(
  actionId: string,
  input: unknown,
  callbacks: Record<string, string> = {},
): Record<string, unknown> & {
  meeting: Record<string, unknown>;
  session: Record<string, unknown>;
  action: Record<string, unknown>;
  callbacks: Record<string, unknown>;
} {
  return {
    invocationId: randomId('gateway-check'),
    meeting: { id: 'gateway-check-meeting', roomName: 'gateway-check' },
    session: { id: 'gateway-check-session', mode: 'active' },
    action: { id: actionId, input },
    context: {},
    callbacks,
  };
}

/** A deep copy of a JSON body, to break one thing in it. */
export const copyBody = <T>(body: T): T => JSON.parse(JSON.stringify(body)) as T;
