import type { ActionDescriptor } from '../../contract/manifest.ts';
import { type CheckRun, describeAnswer, expectThat } from '../check-run.ts';
import { copyBody, invokeBody } from '../invoke-body.ts';

/** An action the checker may invoke, with an input generated from its schema. */
export interface Probe {
  readonly action: ActionDescriptor;
  readonly input: Record<string, unknown>;
}

type Body = ReturnType<typeof invokeBody>;

async function expect422(run: CheckRun, body: unknown, what: string): Promise<void> {
  const answer = await run.request({
    route: 'invoke',
    method: 'POST',
    path: '/v1/invoke',
    body,
    what,
  });
  expectThat(answer.status === 422, `answered ${describeAnswer(answer)}, expected 422`);
}

const UNKNOWN = 'gatewayCheckUnknown';

const STRICT: readonly { where: string; change: (body: Body) => void }[] = [
  { where: 'top-level', change: (b) => Object.assign(b, { [UNKNOWN]: true }) },
  { where: 'meeting', change: (b) => Object.assign(b.meeting, { [UNKNOWN]: true }) },
  { where: 'session', change: (b) => Object.assign(b.session, { [UNKNOWN]: true }) },
  { where: 'action', change: (b) => Object.assign(b.action, { [UNKNOWN]: true }) },
  { where: 'callbacks', change: (b) => Object.assign(b.callbacks, { [UNKNOWN]: 'x' }) },
];

const REQUIRED = [
  'invocationId',
  'meeting',
  'meeting.id',
  'meeting.roomName',
  'session',
  'session.id',
  'session.mode',
  'action',
  'action.input',
  'context',
  'callbacks',
] as const;

function remove(body: Body, path: string): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) delete body[head];
  else delete (body[head] as Record<string, unknown>)[tail];
}

/** An action id no manifest lists, for the unknown-action probe. */
const UNKNOWN_ACTION = 'gateway-check-unknown-action';

/**
 * Invoke requests broken in one way each, built around a valid request for `probe` (so a gateway
 * that accepts them runs only an action the checker may invoke): unknown properties, missing
 * required fields, wrong types, no action, an unknown action or two. `invocable` are the actions
 * the checker may invoke (read actions only without `allowWrites`): the second action named by
 * the two-actions probe is one of them, since a broken gateway may run it.
 */
export async function checkInvokeRequests(
  run: CheckRun,
  probe: Probe | undefined,
  invocable: readonly ActionDescriptor[],
  why: string,
): Promise<void> {
  const cases: {
    id: string;
    rule: 'invoke-request-strict' | 'invoke-request-required' | 'invoke-one-action';
    title: string;
    body?: (base: Body) => unknown;
    skip?: string;
  }[] = [];
  for (const { where, change } of STRICT) {
    cases.push({
      id: `invoke-request-strict:${where}`,
      rule: 'invoke-request-strict',
      title: `an invoke with an unknown property ${where === 'top-level' ? 'at the top level' : `in ${where}`} answers 422`,
      body: (base) => {
        change(base);
        return base;
      },
    });
  }
  for (const path of REQUIRED) {
    cases.push({
      id: `invoke-request-required:${path}`,
      rule: 'invoke-request-required',
      title: `an invoke without ${path} answers 422`,
      body: (base) => {
        remove(base, path);
        return base;
      },
    });
  }
  cases.push(
    {
      id: 'invoke-request-required:invocationId-type',
      rule: 'invoke-request-required',
      title: 'an invoke whose invocationId is a number answers 422',
      body: (base) => ({ ...base, invocationId: 42 }),
    },
    {
      id: 'invoke-request-required:session.mode-value',
      rule: 'invoke-request-required',
      title: 'an invoke whose session.mode is not active, passive or listening answers 422',
      body: (base) => ({ ...base, session: { ...base.session, mode: 'gateway-check' } }),
    },
    {
      id: 'invoke-one-action:none',
      rule: 'invoke-one-action',
      title: 'an invoke naming no action (neither action.id nor action.name) answers 422',
      body: (base) => ({ ...base, action: { input: base.action.input } }),
    },
    {
      id: 'invoke-one-action:unknown',
      rule: 'invoke-one-action',
      title: 'an invoke naming an action the manifest does not list answers 422',
      body: (base) => ({ ...base, action: { ...base.action, id: UNKNOWN_ACTION } }),
    },
  );
  const other =
    probe && invocable.find((a) => a.id !== probe.action.id && a.name !== probe.action.name);
  cases.push({
    id: 'invoke-one-action:two',
    rule: 'invoke-one-action',
    title: 'an invoke whose action.id and action.name name two different actions answers 422',
    ...(other
      ? { body: (base: Body) => ({ ...base, action: { ...base.action, name: other.name } }) }
      : {
          skip: 'the manifest offers no second action the checker may invoke (read actions only without --allow-writes)',
        }),
  });
  for (const c of cases) {
    const build = c.body;
    await run.check(c.id, c.rule, c.title, async () => {
      if (!probe) return { skip: why };
      if (!build) return { skip: c.skip ?? why };
      const base = invokeBody(probe.action.id, probe.input);
      await expect422(run, build(copyBody(base)), c.title);
      return undefined;
    });
  }
}
