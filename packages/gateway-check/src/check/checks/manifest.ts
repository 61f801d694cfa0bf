import * as v from 'valibot';
import { ErrorEnvelopeSchema } from '../../contract/gateway-error.ts';
import { LooseManifestSchema, type Manifest } from '../../contract/manifest.ts';
import { RULES } from '../../contract/rules.ts';
import { isGatewayClientError } from '../../errors/gateway-client-error.ts';
import { checkInputSchema } from '../../schema/json-schema-check.ts';
import { type CheckRun, describeAnswer, expectShape, expectThat } from '../check-run.ts';

/** What to do about a refused token (never printed: the gateway knows which one it got). */
const TOKEN_REFUSED =
  "no check can run without a token the gateway accepts — check --token or SVC_GATEWAY_TOKEN (checkGateway's token option)";

/**
 * Reads the manifest (checking its shape), then checks action ids and input schemas. Resolves with
 * the manifest when it matched the contract, else `undefined` (later checks then skip).
 */
export async function checkManifest(
  run: CheckRun,
  maxActions: number,
): Promise<Manifest | undefined> {
  let manifest: Manifest | undefined;
  let why = 'GET /v1/manifest was not checked';
  const read = async (): Promise<{ skip: string } | undefined> => {
    let answer: Awaited<ReturnType<CheckRun['request']>>;
    try {
      answer = await run.request({
        route: 'manifest',
        method: 'GET',
        path: '/v1/manifest',
        what: 'GET /v1/manifest',
      });
    } catch (error) {
      // No answer at all: the run could not start (exit 2), which says nothing about the contract.
      if (isGatewayClientError(error) && error.kind !== 'too-large') {
        run.couldNotRun = `no answer to GET /v1/manifest: ${error.message}`;
        return { skip: `no answer: ${error.message}` };
      }
      throw error;
    }
    // The token given refused, in the contract's own words (401 and an error envelope): nothing
    // else can be checked, which says nothing about the contract (exit 2). A gateway that refuses
    // every token looks the same from outside. A 401 without an envelope breaks the contract
    // whatever the token: it is checked as any other answer (manifest-shape, error-envelope).
    if (answer.status === 401 && v.is(ErrorEnvelopeSchema, answer.json)) {
      run.couldNotRun = `GET /v1/manifest answered 401 to the token given; ${TOKEN_REFUSED}`;
      return { skip: `the gateway answered 401 to the token given; ${TOKEN_REFUSED}` };
    }
    why = `GET /v1/manifest answered ${describeAnswer(answer)}`;
    expectThat(answer.status === 200, `${why}, expected 200`);
    why = 'the manifest does not match the contract';
    manifest = expectShape(LooseManifestSchema, answer.json, 'the manifest');
    return undefined;
  };
  // The manifest is needed by every action check, whether its own check is selected or not.
  const result = await run.check(
    'manifest-shape:manifest',
    'manifest-shape',
    'GET /v1/manifest answers 200 with every field of the manifest table',
    read,
  );
  if (!result) await read().catch(() => undefined);
  if (run.couldNotRun) return undefined;
  if (!manifest) {
    for (const [id, rule] of [
      ['manifest-action-ids-unique:manifest', 'manifest-action-ids-unique'],
      ['manifest-input-schema:manifest', 'manifest-input-schema'],
    ] as const) {
      await run.skip(id, rule, RULES[rule].summary, `needs the manifest: ${why}`);
    }
    return undefined;
  }
  const { actions } = manifest;
  await run.check(
    'manifest-action-ids-unique:manifest',
    'manifest-action-ids-unique',
    'action ids are unique',
    async () => {
      const seen = new Set<string>();
      const twice = actions.map((a) => a.id).filter((id) => seen.size === seen.add(id).size);
      expectThat(
        twice.length === 0,
        `action ids appear more than once: ${[...new Set(twice)].join(', ')}`,
      );
    },
  );
  if (actions.length > maxActions) {
    await run.skip(
      'manifest-shape:actions-checked',
      'manifest-shape',
      'every action of the manifest is checked',
      `the manifest lists ${actions.length} actions: only the first ${maxActions} are checked one by one (maxActions / --max-actions)`,
    );
  }
  for (const action of actions.slice(0, maxActions)) {
    await run.check(
      `manifest-input-schema:${action.id}`,
      'manifest-input-schema',
      `the inputSchema of ${action.id} is a JSON Schema with an object root`,
      async () => {
        const problems = checkInputSchema(action.inputSchema);
        expectThat(problems.length === 0, problems.join('; '));
      },
    );
  }
  return manifest;
}
