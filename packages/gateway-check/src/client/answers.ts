import * as v from 'valibot';
import { ErrorEnvelopeSchema } from '../contract/gateway-error.ts';
import type { RuleId } from '../contract/rules.ts';
import { GatewayClientError } from '../errors/gateway-client-error.ts';
import type { HttpAnswer } from '../http/exchange.ts';

/**
 * `issue.message` without the string received: valibot's default messages end in `…received
 * "<the value>"`, which may be anything the gateway echoed (a token it was sent). The kind
 * received (`undefined`, `Object`) and counts (`received 0`) stay.
 */
function withoutValue(issue: v.BaseIssue<unknown>): string {
  const { message, received } = issue;
  if (!received.startsWith('"') || !message.endsWith(`eceived ${received}`)) return message;
  return `${message.slice(0, -received.length)}a string`;
}

/**
 * One line per issue: its path and what was expected (never the value received).
 *
 * @example
 * describeIssues(v.safeParse(v.object({ type: v.literal('bearer') }), { type: 'x' }).issues!);
 * // ['type: Invalid type: Expected "bearer" but received a string']
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.slice(0, 10).map((issue) => {
    const path = v.getDotPath(issue);
    return `${path ? `${path}: ` : ''}${withoutValue(issue)}`;
  });
}

/**
 * The body of a 200 answer parsed by `schema`; an error envelope becomes a `gateway` error, and
 * anything the contract does not allow a `contract` error naming `rule`.
 */
export function expectAnswer<T>(
  answer: HttpAnswer,
  schema: v.GenericSchema<T>,
  rule: RuleId,
  what: string,
): T {
  if (answer.status !== 200) {
    // A redirect is not followed (the token would go with it); in a browser it has status 0.
    if (answer.status === 0 || (answer.status >= 300 && answer.status < 400)) {
      const location = answer.headers.get('location');
      throw new GatewayClientError({
        kind: 'contract',
        status: answer.status,
        rule: 'error-envelope',
        issues: [],
        message: `${what}: the gateway answered a redirect${answer.status === 0 ? '' : ` (${answer.status})`}${location ? ` to ${location}` : ''}, which is not followed: the token would go with it (rule error-envelope)`,
      });
    }
    const envelope = v.safeParse(ErrorEnvelopeSchema, answer.json);
    if (envelope.success) {
      const { error } = envelope.output;
      throw new GatewayClientError({
        kind: 'gateway',
        status: answer.status,
        error,
        message: `${what}: the gateway answered ${answer.status} ${error.code}: ${error.message}`,
      });
    }
    throw new GatewayClientError({
      kind: 'contract',
      status: answer.status,
      rule: 'error-envelope',
      issues: envelope.issues ? describeIssues(envelope.issues) : [],
      message: `${what}: the gateway answered ${answer.status} without the error envelope (rule error-envelope)`,
    });
  }
  const parsed = v.safeParse(schema, answer.json);
  if (parsed.success) return parsed.output;
  const issues =
    answer.json === undefined ? ['the body is not JSON'] : describeIssues(parsed.issues);
  throw new GatewayClientError({
    kind: 'contract',
    status: answer.status,
    rule,
    issues,
    message: `${what}: the answer breaks the contract (rule ${rule}): ${issues.join('; ')}`,
  });
}
