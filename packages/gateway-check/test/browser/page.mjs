// Runs inside headless Chromium (bundled by run.mjs): drives the gateway served by the page's own
// origin with the built typed client.
import { createGatewayClient, isGatewayClientError } from '../../dist/client.js';

const results = [];
const check = (name, ok, detail = '') =>
  results.push({ name, ok: Boolean(ok), detail: ok ? '' : detail });

async function main() {
  const token = new URLSearchParams(location.search).get('token');
  const client = createGatewayClient({ url: location.origin, token });
  const manifest = await client.manifest();
  check(
    'reads the manifest',
    manifest.actions.some((a) => a.id === 'summarize'),
  );

  const quick = await client.invoke('summarize', { topic: 'browser', delayMs: 20 });
  const done = quick.status === 'accepted' && (await quick.handle.wait({ pollIntervalMs: 20 }));
  check('drives an async job to completion', done?.status === 'completed', JSON.stringify(done));

  const slow = await client.invoke('summarize', { topic: 'browser', delayMs: 60_000 });
  if (slow.status === 'accepted') await slow.handle.cancel();
  const cancelled = slow.status === 'accepted' && (await slow.handle.wait({ pollIntervalMs: 20 }));
  check('cancels a running job', cancelled?.status === 'cancelled', JSON.stringify(cancelled));

  const error = await createGatewayClient({ url: location.origin, token: 'wrong' })
    .manifest()
    .catch((e) => e);
  check(
    'rejects a wrong token as a gateway error',
    isGatewayClientError(error) && error.status === 401,
  );
}

main()
  .catch((error) => check('page script', false, String(error?.stack ?? error)))
  .finally(() => {
    window.__results = results;
  });
