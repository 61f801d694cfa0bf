import { fileURLToPath } from 'node:url';
import { invokeBody } from '@svc/gateway-kit/testing';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { bundleWorker } from './workerd/bundle.ts';

// A configuration the kit refuses (a binding unset or wrong, as under `wrangler dev` without
// `.dev.vars`): Workers have no start-up at which to fail, so every request answers the
// contract's error envelope, and the reason is logged once, naming the option and no value.
const script = await bundleWorker(
  fileURLToPath(new URL('./workerd/config-worker.ts', import.meta.url)),
);
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
const TOKEN = 'config-token-0123456789';
const started: Miniflare[] = [];
afterAll(() => Promise.all(started.map((miniflare) => miniflare.dispose())));

/** The Worker with these bindings, and the error lines it logs. */
function start(bindings: Record<string, string>) {
  const errors: string[] = [];
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      name: 'config',
      modules: true,
      script,
      compatibilityDate: '2026-11-01',
      durableObjects: { GATEWAY: { className: 'GatewayObject', useSQLite: true } },
      bindings,
      handleStructuredLogs: (log) => {
        if (log.level === 'error') errors.push(log.message);
      },
    }),
  );
  started.push(miniflare);
  return { miniflare, errors };
}

const requests = (token?: string) => {
  const authorization: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  return [
    { path: '/v1/manifest', init: { headers: authorization } },
    {
      path: '/v1/invoke',
      init: {
        method: 'POST',
        headers: { ...authorization, 'content-type': 'application/json' },
        body: JSON.stringify(invokeBody('echo', { text: 'hi' })),
      },
    },
    { path: '/v1/jobs/job-1', init: { headers: authorization } },
    { path: '/no/such/route', init: { headers: authorization } },
  ];
};

const ENVELOPE = {
  error: { code: 'internal_error', message: 'The gateway failed unexpectedly.', retryable: false },
};

/** Every request, authenticated with `token` or not, answers the envelope and nothing more. */
async function expectEveryRequestRefused(miniflare: Miniflare, tokens: (string | undefined)[]) {
  for (const token of tokens) {
    for (const { path, init } of requests(token)) {
      const answer = await miniflare.dispatchFetch(`http://config${path}`, init);
      const body = await answer.text();
      expect({ path, status: answer.status }).toEqual({ path, status: 500 });
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(body)).toEqual(ENVELOPE);
      for (const detail of ['GatewayConfigError', 'createGateway', 'auth', 'signingSecret', 'at '])
        expect(body).not.toContain(detail);
    }
  }
}

it('GATEWAY_TOKEN unset: every request answers 500 internal_error, and the log names auth.tokens[0]', async () => {
  const { miniflare, errors } = start({ CALLBACK_SIGNING_SECRET: SECRET });
  await expectEveryRequestRefused(miniflare, [undefined, 'some-token']);
  // The router refused the configuration before routing: no object was created.
  expect(await (await miniflare.dispatchFetch('http://config/_routed')).json()).toEqual([]);
  const logged = errors.filter((line) => line.includes('auth.tokens[0]'));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain(
    'createGateway: auth.tokens[0] is undefined: is an environment variable unset?',
  );
});

it('CALLBACK_SIGNING_SECRET wrong: every request answers 500 internal_error, the log names callbacks.signingSecret and not the secret', async () => {
  const wrong = 'whsec_%%not-base64%%';
  const { miniflare, errors } = start({ GATEWAY_TOKEN: TOKEN, CALLBACK_SIGNING_SECRET: wrong });
  await expectEveryRequestRefused(miniflare, [undefined, 'made-up', TOKEN]);
  const logged = errors.filter((line) => line.includes('callbacks.signingSecret'));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain(
    "createGateway: callbacks.signingSecret is a string: expected 'whsec_' and base64.",
  );
  for (const line of errors) {
    expect(line).not.toContain(wrong);
    expect(line).not.toContain(TOKEN);
  }
});

it('CALLBACK_SIGNING_SECRET unset: the log says which variable may be unset', async () => {
  const { miniflare, errors } = start({ GATEWAY_TOKEN: TOKEN });
  await expectEveryRequestRefused(miniflare, [TOKEN]);
  expect(
    errors.filter((line) => line.includes('callbacks.signingSecret is undefined')),
  ).toHaveLength(1);
});

it('WATCH_INTERVAL_MS no timer holds (watchIntervalMs from env): every request answers 500 internal_error, the log names watchIntervalMs once', async () => {
  const { miniflare, errors } = start({
    GATEWAY_TOKEN: TOKEN,
    CALLBACK_SIGNING_SECRET: SECRET,
    WATCH_INTERVAL_MS: '0',
  });
  await expectEveryRequestRefused(miniflare, [undefined, 'made-up', TOKEN]);
  const logged = errors.filter((line) => line.includes('watchIntervalMs'));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain(
    "the gateway's configuration is refused, every request answers 500 internal_error until it is fixed: createGatewayWorker: watchIntervalMs is the number 0: expected a positive integer of milliseconds up to 2147483647.",
  );
  // Nothing else: no request failed on its own.
  expect(errors).toEqual(logged);
});

it('with its bindings set, the same Worker serves the contract', async () => {
  const { miniflare, errors } = start({ GATEWAY_TOKEN: TOKEN, CALLBACK_SIGNING_SECRET: SECRET });
  const answer = await miniflare.dispatchFetch('http://config/v1/manifest', {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(answer.status).toBe(200);
  const refused = await miniflare.dispatchFetch('http://config/v1/manifest');
  expect(refused.status).toBe(401);
  expect(errors).toEqual([]);
});
