import { type CheckRun, describeAnswer, expectThat, type Route } from '../check-run.ts';

const UNKNOWN_JOB = 'gateway-check-unknown-job';

const ROUTES: readonly { route: Route; method: 'GET' | 'POST'; path: string }[] = [
  { route: 'manifest', method: 'GET', path: '/v1/manifest' },
  { route: 'invoke', method: 'POST', path: '/v1/invoke' },
  { route: 'job', method: 'GET', path: `/v1/jobs/${UNKNOWN_JOB}` },
  { route: 'cancel', method: 'POST', path: `/v1/jobs/${UNKNOWN_JOB}/cancel` },
];

/**
 * Every route answers 401 to a missing, wrong, non-Bearer or empty credential. The invoke body is
 * `{}`, so a gateway that skips authentication runs no action.
 */
export async function checkAuth(run: CheckRun): Promise<void> {
  const cases: readonly { name: string; title: string; authorization: string | null }[] = [
    { name: 'missing-token', title: 'without an Authorization header', authorization: null },
    {
      name: 'wrong-token',
      title: 'with a wrong token',
      authorization: 'Bearer gateway-check-wrong-token',
    },
    {
      name: 'wrong-scheme',
      title: 'with the token under the Basic scheme',
      authorization: `Basic ${run.settings.token}`,
    },
    { name: 'empty-token', title: 'with an empty Bearer token', authorization: 'Bearer ' },
  ];
  for (const { route, method, path } of ROUTES) {
    for (const { name, title, authorization } of cases) {
      const what = `${method} ${path} ${title}`;
      await run.check(
        `auth-bearer:${route}:${name}`,
        'auth-bearer',
        `${what} answers 401`,
        async () => {
          const answer = await run.request({
            route,
            method,
            path,
            authorization,
            what,
            ...(route === 'invoke' ? { body: {} } : {}),
          });
          expectThat(answer.status === 401, `answered ${describeAnswer(answer)}, expected 401`);
        },
      );
    }
  }
}

/** GET and cancel of a job the gateway never issued answer a 4xx error. */
export async function checkUnknownJob(run: CheckRun): Promise<void> {
  for (const { route, method, path } of ROUTES.slice(2)) {
    await run.check(
      `job-unknown:${route}`,
      'job-unknown',
      `${method} ${path} (a job never issued) answers a 4xx error`,
      async () => {
        const answer = await run.request({
          route,
          method,
          path,
          what: `${method} of an unknown job`,
        });
        expectThat(
          answer.status >= 400 && answer.status < 500,
          `answered ${describeAnswer(answer)}, expected a 4xx error`,
        );
      },
    );
  }
}
