import * as v from 'valibot';
import { describeIssues } from '../../client/answers.ts';
import { ErrorEnvelopeSchema } from '../../contract/gateway-error.ts';
import { type CheckRun, expectThat, type Route } from '../check-run.ts';

const TITLES: Record<Route, string> = {
  manifest: 'every error answer of GET /v1/manifest is the error envelope',
  invoke: 'every error answer of POST /v1/invoke is the error envelope',
  job: 'every error answer of GET /v1/jobs/{jobId} is the error envelope',
  cancel: 'every error answer of POST /v1/jobs/{jobId}/cancel is the error envelope',
};

/** Judges every non-2xx answer seen during the run, per route. Runs last. */
export async function checkEnvelopes(run: CheckRun): Promise<void> {
  for (const route of Object.keys(TITLES) as Route[]) {
    await run.check(`error-envelope:${route}`, 'error-envelope', TITLES[route], async () => {
      const seen = run.errorAnswers[route];
      if (seen.length === 0) return { skip: 'no error answer was seen on this route in this run' };
      const bad = seen.flatMap(({ what, answer }) => {
        const parsed = v.safeParse(ErrorEnvelopeSchema, answer.json);
        if (parsed.success) return [];
        const why =
          answer.json === undefined
            ? 'the body is not JSON'
            : describeIssues(parsed.issues).join(', ');
        return [`${what} → ${answer.status}: ${why}`];
      });
      expectThat(
        bad.length === 0,
        `${bad.length} of ${seen.length} error answers are not the envelope: ${bad.slice(0, 3).join('; ')}`,
      );
      return undefined;
    });
  }
}
