import { type CheckRun, expectThat, type Route } from '../check-run.ts';

const TITLES: Record<Route, string> = {
  manifest: 'every JSON answer of GET /v1/manifest has Content-Type application/json',
  invoke: 'every JSON answer of POST /v1/invoke has Content-Type application/json',
  job: 'every JSON answer of GET /v1/jobs/{jobId} has Content-Type application/json',
  cancel: 'every JSON answer of POST /v1/jobs/{jobId}/cancel has Content-Type application/json',
};

/** The most of a `Content-Type` value quoted in a message. */
const MAX_QUOTED = 100;

const quote = (contentType: string | null): string =>
  contentType === null
    ? 'no Content-Type'
    : `Content-Type ${JSON.stringify(
        contentType.length > MAX_QUOTED ? `${contentType.slice(0, MAX_QUOTED)}…` : contentType,
      )}`;

/**
 * Judges the media type of every answer with a JSON body seen during the run (manifest, invoke
 * outcomes, jobs, error envelopes), per route: it must be `application/json`, parameters allowed.
 * Runs last.
 */
export async function checkContentTypes(run: CheckRun): Promise<void> {
  for (const route of Object.keys(TITLES) as Route[]) {
    await run.check(`json-content-type:${route}`, 'json-content-type', TITLES[route], async () => {
      const { seen, mislabelled, first } = run.jsonAnswers[route];
      if (seen === 0)
        return { skip: 'no answer with a JSON body was seen on this route in this run' };
      const named = first.map((a) => `${a.what} → ${a.status} with ${quote(a.contentType)}`);
      const more = mislabelled > first.length ? `; and ${mislabelled - first.length} more` : '';
      expectThat(
        mislabelled === 0,
        `${mislabelled} of ${seen} JSON answers are not labelled application/json: ${named.join('; ')}${more}`,
      );
      return undefined;
    });
  }
}
