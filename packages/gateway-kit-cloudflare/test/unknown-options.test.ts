import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// Where a refused option name or value surfaces in a Worker. createGatewayWorker's own options
// (and `stores`, names and values) are static: it judges them when the Worker's module loads, so
// the Worker does not start (`wrangler deploy` and `wrangler dev` fail with the message). What
// `gateway(env)` returns is judged by createGateway in each object, per request: the
// refused-configuration path (a `watchIntervalMs` function of env too: refused-config.test.ts).
const entry = fileURLToPath(new URL('./workerd/option-names-worker.ts', import.meta.url));
const TOKEN = 'names-token-0123456789';
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
const started: Miniflare[] = [];
afterAll(() => Promise.all(started.map((miniflare) => miniflare.dispose())));

type Entry = 'createGatewayWorker' | 'gatewayObject';

/** The Worker built on `ENTRY` with these options, and the error lines it logs. */
async function start(
  workerOptions: object,
  gatewayOptions: object = {},
  provided: string[] = [],
  ENTRY: Entry = 'createGatewayWorker',
) {
  const script = await bundleWorker(entry, {
    WORKER_OPTIONS: workerOptions,
    GATEWAY_OPTIONS: gatewayOptions,
    GATEWAY_PROVIDED: provided,
    ENTRY,
  });
  const errors: string[] = [];
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      name: 'names',
      modules: true,
      script,
      compatibilityDate: '2026-11-01',
      durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
      handleStructuredLogs: (log) => {
        if (log.level === 'error') errors.push(log.message);
      },
    }),
  );
  started.push(miniflare);
  return { miniflare, errors };
}

it.each([
  [
    { shardkey: 'tenant' },
    'createGatewayWorker: unknown option "shardkey" (known: gateway, namespace, shardKey, stores, watchIntervalMs).',
  ],
  [
    { stores: { jobs: { maxJob: 5, signingSecret: SECRET } } },
    'createGatewayWorker: stores.jobs: unknown options "maxJob", "signingSecret" (known: maxJobs, maxBytes, retentionMs, maxFinishedPerOwner, onListenerError, maxResumes).',
  ],
  // Values a store refuses: before, each object refused them as it started, on every request
  // (logged each time, its stack; a Worker forwarding to gatewayObject's class answered it).
  [
    { stores: { jobs: { maxJobs: -1 } } },
    'createGatewayWorker: stores.jobs.maxJobs is the number -1: expected a positive integer.',
  ],
  [
    { stores: { jobs: { onListenerError: 'console' } } },
    'createGatewayWorker: stores.jobs.onListenerError is a string: expected a function.',
  ],
  [
    { stores: { records: { maxRecords: 0 } } },
    'createGatewayWorker: stores.records.maxRecords is the number 0: expected a positive integer.',
  ],
  [
    { stores: { outbox: { pollIntervalMs: 2 ** 31 } } },
    'createGatewayWorker: stores.outbox.pollIntervalMs is the number 2147483648: expected a positive integer of milliseconds up to 2147483647.',
  ],
  // Before, refused by each object (every request answered 500 internal_error).
  [
    { watchIntervalMs: 0 },
    'createGatewayWorker: watchIntervalMs is the number 0: expected a positive integer of milliseconds up to 2147483647.',
  ],
])(
  'createGatewayWorker with %o, at the top level: the Worker does not start, and says why',
  async (options, message) => {
    const { miniflare, errors } = await start(options);
    const failed = await miniflare.ready.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: 'ERR_RUNTIME_FAILURE' });
    // A runtime that never started disposes with the same error.
    started.splice(started.indexOf(miniflare), 1);
    await miniflare.dispose().catch(() => {});
    const uncaught = errors.filter((line) => line.includes('Uncaught'));
    expect(uncaught).toHaveLength(1);
    expect(uncaught[0]).toContain(`GatewayConfigError: ${message}`);
    for (const line of errors) expect(line).not.toContain(SECRET);
  },
);

/** Without a token, with a wrong one and with the right one (twice): `500 internal_error`. */
async function expectEveryRequestRefused(miniflare: Miniflare): Promise<void> {
  for (const token of [undefined, 'made-up', TOKEN, TOKEN]) {
    const answer = await miniflare.dispatchFetch('http://names/v1/manifest', {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({
      error: {
        code: 'internal_error',
        message: 'The gateway failed unexpectedly.',
        retryable: false,
      },
    });
  }
}

it('an unknown name in what gateway(env) returns: every request answers 500 internal_error, and the log names it once, without its value', async () => {
  const { miniflare, errors } = await start(
    { stores: { jobs: { maxJobs: 5 } } },
    { callbacks: { signingSecret: SECRET, signingSecrett: SECRET } },
  );
  await expectEveryRequestRefused(miniflare);
  const logged = errors.filter((line) => line.includes('signingSecrett'));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain(
    'the gateway\'s configuration is refused, every request answers 500 internal_error until it is fixed: createGateway: callbacks: unknown option "signingSecrett" (known: ',
  );
  for (const line of errors) expect(line).not.toContain(SECRET);
});

// What createGateway takes but the object provides itself (WorkerGatewayOptions omits it): given
// from JavaScript, the stores were replaced by the object's without a word, and a `waitUntil` or
// a `now` passed to the gateway alone (its clock then disagreed with the stores' and the alarm's).
const PROVIDED_WHY = {
  jobStore: 'jobStore: its DurableJobStore, whose options are stores.jobs',
  recordStore: 'recordStore: its DurableRecordStore, whose options are stores.records',
  waitUntil: 'waitUntil: it keeps its background work alive itself, and its alarm recovers jobs',
  now: 'now: its stores and alarm keep Date.now, a gateway clock of its own would disagree with them',
};
// Through either entry: createGatewayWorker, or gatewayObject's class behind a Worker of one's own.
describe.each(['createGatewayWorker', 'gatewayObject'] as const)('%s', (factory) => {
  it.each([
    [['jobStore']],
    [['recordStore']],
    [['waitUntil']],
    [['now']],
    [['jobStore', 'recordStore', 'waitUntil', 'now']],
  ] as const)(
    'gateway(env) returning %o, which the object provides itself: every request answers 500 internal_error, and the log names it once',
    async (names) => {
      const { miniflare, errors } = await start(
        {},
        { callbacks: { signingSecret: SECRET } },
        [...names],
        factory,
      );
      await expectEveryRequestRefused(miniflare);
      const quoted = names.map((name) => `"${name}"`).join(', ');
      const why = names.map((name) => PROVIDED_WHY[name]).join('; ');
      expect(errors).toEqual([
        `@svc/gateway-kit-cloudflare: the gateway's configuration is refused, every request answers 500 internal_error until it is fixed: ${factory}: gateway(env) returned ${quoted}, which the Durable Object provides itself (${why}): remove ${names.length === 1 ? 'it' : 'them'}.`,
      ]);
      for (const line of errors) expect(line).not.toContain(SECRET);
    },
  );
});

it('with every name known, the same Worker starts and serves the contract', async () => {
  const { miniflare, errors } = await start(
    {
      shardKey: undefined,
      stores: {
        prefix: 'gw_',
        jobs: { maxJobs: 5 },
        records: { maxRecords: 50 },
        outbox: { ttlMs: 60_000 },
      },
      watchIntervalMs: 5_000,
    },
    { callbacks: { signingSecret: SECRET } },
  );
  const answer = await miniflare.dispatchFetch('http://names/v1/manifest', {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(answer.status).toBe(200);
  expect(errors).toEqual([]);
});
